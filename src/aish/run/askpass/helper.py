"""aish's askpass program (run as a script, standard library only): `SUDO_ASKPASS` runs it
with the prompt; it asks aish over the bridge's socket and prints the answer for sudo.

Usage: helper.py SOCKET [PROMPT]. Exit 0 with the password on stdout, 1 when there is none
(nobody answered, the user declined, or aish refused an asker that is not sudo): sudo then
says no password was given.
"""

import socket
import sys

_MAX_ANSWER = 64 * 1024


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        return 1
    prompt = argv[2] if len(argv) > 2 else "Password: "
    question = " ".join(prompt.split("\n"))[:1000] + "\n"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as channel:
            channel.connect(argv[1])
            channel.sendall(question.encode("utf-8", "replace"))
            answer = b""
            while len(answer) < _MAX_ANSWER:
                piece = channel.recv(4096)
                if not piece:
                    break
                answer += piece
    except OSError:
        sys.stderr.write("aish askpass: aish is not answering\n")
        return 1
    if answer.startswith(b"!"):
        sys.stderr.write("aish askpass: refused: only sudo may ask aish for a password\n")
        return 1
    if not answer.startswith(b"+"):
        return 1
    sys.stdout.buffer.write(answer[1:])
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
