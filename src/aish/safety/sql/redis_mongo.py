"""The database clients that do not speak SQL: `redis-cli CMD …` and `mongosh --eval SCRIPT`.

redis-cli's options are read first (some only watch the server, `--rdb` writes a dump over a
file, `--eval` and `--pipe` run what they are given); then the command is destructive when it
deletes data or ends connections, safe when it is on a list of readers, and unknown otherwise.
A mongo script is destructive when it calls a drop or delete method or command, and unknown
otherwise: JavaScript is not read closely enough to prove it read-only. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from aish.safety.bash.options import ArgView
from aish.safety.reasons import destructive, unknown
from aish.safety.verdict import SAFE, Verdict, worst


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_REDIS_DESTRUCTIVE = _words(
    "flushall flushdb del unlink shutdown swapdb rename restore migrate expire pexpire "
    "expireat pexpireat getdel replicaof slaveof"
)
_REDIS_DESTRUCTIVE_PAIRS = {
    ("client", "kill"): "redis CLIENT KILL ends client connections",
    ("script", "flush"): "redis SCRIPT FLUSH deletes every script",
    ("function", "flush"): "redis FUNCTION FLUSH deletes every function",
    ("function", "delete"): "redis FUNCTION DELETE deletes a library",
    ("cluster", "reset"): "redis CLUSTER RESET forgets the cluster",
    ("cluster", "flushslots"): "redis CLUSTER FLUSHSLOTS drops every slot",
    ("acl", "deluser"): "redis ACL DELUSER deletes users",
}
_REDIS_READERS = _words(
    "get mget keys scan info ping ttl pttl type exists strlen llen lrange lindex hget hgetall "
    "hkeys hvals hlen hexists hmget hstrlen hscan smembers scard sismember smismember sscan "
    "zrange zrangebyscore zrevrange zrevrangebyscore zcard zscore zrank zrevrank zcount zscan "
    "dbsize time echo lastsave role xrange xrevrange xlen getrange randomkey bitcount getbit "
    "pfcount geopos geodist"
)
_REDIS_READER_PAIRS = frozenset(
    (
        ("config", "get"),
        ("client", "list"),
        ("client", "info"),
        ("client", "getname"),
        ("client", "id"),
        ("memory", "usage"),
        ("memory", "stats"),
        ("memory", "doctor"),
        ("cluster", "info"),
        ("cluster", "nodes"),
        ("cluster", "slots"),
        ("cluster", "shards"),
        ("acl", "list"),
        ("acl", "whoami"),
        ("acl", "users"),
        ("command", "count"),
        ("command", "docs"),
        ("command", "info"),
        ("slowlog", "get"),
        ("slowlog", "len"),
        ("latency", "latest"),
        ("latency", "doctor"),
        ("module", "list"),
        ("function", "list"),
        ("script", "exists"),
        ("object", "encoding"),
        ("object", "idletime"),
        ("object", "freq"),
        ("object", "refcount"),
        ("xinfo", "stream"),
        ("xinfo", "groups"),
    )
)
_REDIS_VALUE_OPTIONS = _words(
    "-h -p -s -a -u -r -i -n -d -D -t -X --user --pass --sni --cacert --cacertdir --cert --key "
    "--tls-ciphers --tls-ciphersuites --show-pushes --pattern --count --quoted-pattern "
    "--memkeys-samples --keystats-samples --pipe-timeout --intrinsic-latency"
)
_REDIS_FLAGS = _words(
    "-2 -3 -4 -6 -x -c -e --tls --insecure --raw --no-raw --quoted-input --csv --json "
    "--quoted-json --askpass --no-auth-warning --verbose --help --version --ldb "
    "--ldb-sync-mode --latency-dist"
)
# Modes that only watch or sample the server (and --intrinsic-latency, which takes a value).
_REDIS_WATCHERS = _words(
    "--stat --latency --latency-history --bigkeys --memkeys --keystats --hotkeys --scan --replica"
)
_REDIS_UNSAFE = {
    "--eval": "runs a Lua script",
    "--pipe": "sends every command it reads from its input",
    "--cluster": "manages the cluster",
    "--lru-test": "writes test keys",
    "--functions-rdb": "writes a dump file",
}


def check_redis(program: str, view: ArgView) -> Verdict | None:
    words = view.words
    operands: list[str | None] = []
    parts: list[Verdict] = []
    watching = False
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if operands or word is None or not word.startswith("-"):
            operands.append(word)
            continue
        if word in _REDIS_VALUE_OPTIONS:
            index += 1
            watching = watching or word == "--intrinsic-latency"
        elif word in _REDIS_WATCHERS:
            watching = True
        elif word == "--rdb":
            target = words[index] if index < len(words) else None
            parts.append(destructive(f"redis-cli --rdb writes a dump over {target or 'a file'}"))
            index += 1
        elif word in _REDIS_UNSAFE:
            parts.append(unknown(f"redis-cli {word} {_REDIS_UNSAFE[word]}"))
            break
        elif word not in _REDIS_FLAGS:
            parts.append(unknown(f"redis-cli option {word} is not known"))
    if operands:
        parts.append(_redis_command(operands))
    elif not watching and not parts:
        parts.append(unknown("redis-cli opens a session"))
    return worst(parts)


def _redis_command(operands: Sequence[str | None]) -> Verdict:
    if operands[0] is None:
        return unknown("redis command computed at run time")
    command = operands[0].lower()
    sub = (operands[1] or "").lower() if len(operands) > 1 else ""
    if command in _REDIS_DESTRUCTIVE:
        return destructive(f"redis {command.upper()} deletes data")
    if (command, sub) in _REDIS_DESTRUCTIVE_PAIRS:
        return destructive(_REDIS_DESTRUCTIVE_PAIRS[(command, sub)])
    if command in _REDIS_READERS or (command, sub) in _REDIS_READER_PAIRS:
        return SAFE
    return unknown(f"redis {command.upper() or 'command'} may change data")


# ---- mongo ----------------------------------------------------------------------------------

_MONGO_DESTRUCTIVE = re.compile(
    r"\.(drop|dropDatabase|deleteMany|deleteOne|remove|findOneAndDelete|dropIndexes?|"
    r"dropUser|dropAllUsers|dropRole|dropAllRoles|dropSearchIndex)\s*\(|"
    r"[{,]\s*[\"']?(drop|dropDatabase|delete|dropIndexes|dropAllUsersFromDatabase)[\"']?\s*:"
)


def check_mongo(program: str, view: ArgView) -> Verdict | None:
    words = view.words
    scripts: list[str | None] = []
    parts: list[Verdict] = []
    for index, word in enumerate(words):
        if word == "--eval":
            scripts.append(words[index + 1] if index + 1 < len(words) else "")
        elif word is not None and word.startswith("--eval="):
            scripts.append(word.split("=", 1)[1])
        elif word in ("-f", "--file") or (word or "").endswith(".js"):
            parts.append(unknown(f"{program} runs a script file"))
    if any(s is None or _MONGO_DESTRUCTIVE.search(s) for s in scripts):
        return destructive("mongo script drops or deletes data")
    if scripts:
        parts.append(unknown("mongo script may change data"))
    elif not parts:
        parts.append(unknown(f"{program} opens a database session"))
    return worst(parts)
