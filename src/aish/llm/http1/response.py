"""A response whose body is read as the caller asks: all at once, as bytes, or as text."""

from __future__ import annotations

import codecs
from collections.abc import AsyncIterator

from aish.llm.http1.body import Body
from aish.llm.http1.errors import BadResponse
from aish.llm.http1.head import Headers, ResponseHead

__all__ = ["Response", "decoded", "text_encoding"]


def text_encoding(content_type: str) -> str:
    """The charset `content_type` declares when Python knows it as a text encoding, else
    UTF-8. Python's codec registry also holds transforms (`rot13`, `base64`, `zlib`) that
    cannot decode bytes to text, or would decompress them: the server names the charset, so
    one of those is ignored like an unknown name."""
    for param in content_type.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset":
            name = value.strip().strip("\"'")
            try:
                codec = codecs.lookup(name)
            except LookupError:
                break
            # The flag `bytes.decode` itself checks to refuse such codecs.
            if getattr(codec, "_is_text_encoding", True):
                return codec.name
            break
    return "utf-8"


class Response:
    def __init__(self, url: str, head: ResponseHead, body: Body) -> None:
        self.url = url
        self.status_code = head.status
        self.reason_phrase = head.reason
        self.http_version = head.version
        self.headers: Headers = head.headers
        self._body = body
        self._started = False
        self._content: bytes | None = None

    @property
    def body_complete(self) -> bool:
        """The body was read to its end."""
        return self._body.done

    @property
    def encoding(self) -> str:
        """The charset the Content-Type declares when it is a text encoding, else UTF-8."""
        return text_encoding(self.headers.get("content-type", ""))

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body's pieces as they arrive. A body can be read once."""
        if self._content is not None:
            if self._content:
                yield self._content
            return
        if self._started:
            raise RuntimeError("the response body was already read")
        self._started = True
        coding = self.headers.get("content-encoding", "identity").strip().lower()
        if coding not in ("identity", ""):
            # Asked for with `Accept-Encoding: identity`; decoding it is not supported.
            raise BadResponse(f"the body is compressed ({coding[:20]}), which was not asked for")
        while piece := await self._body.next():
            yield piece

    async def aiter_text(self) -> AsyncIterator[str]:
        """The body decoded incrementally; bytes invalid in its charset become U+FFFD."""
        async for text in decoded(self.aiter_bytes(), self.encoding):
            yield text

    async def aread(self) -> bytes:
        """The whole body (kept: a second call returns it again)."""
        if self._content is None:
            self._content = b"".join([piece async for piece in self.aiter_bytes()])
        return self._content


async def decoded(pieces: AsyncIterator[bytes], encoding: str) -> AsyncIterator[str]:
    """`pieces` decoded incrementally; bytes invalid in `encoding` become U+FFFD."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    async for piece in pieces:
        if text := decoder.decode(piece):
            yield text
    if tail := decoder.decode(b"", final=True):
        yield tail
