"""How fast the secrets scrubber goes: megabytes a second through `SecretVault.scrub`.

Five inputs of about a megabyte each (shell output built from the development secrets corpus,
the same with the known values planted in other shapes, random words, an `xxd` dump, one
base64 blob), each scrubbed by a vault that knows ten environment values (as a session does
once it has seen the environment), several rounds; the
median round counts, in wall-clock time and in CPU time (`time.process_time`, which other
jobs on a shared machine disturb less). `--baseline DIR` measures the `src` of another
checkout too (say `git archive main src | tar -x -C /tmp/base`), alternating input by input,
for a before/after on the same busy machine. Results go into bench/RESULTS.md between this
bench's markers, unless `--no-write`.

    .venv/bin/python bench/scrub.py [--rounds 5] [--baseline /tmp/base/src] [--no-write]
"""

from __future__ import annotations

import argparse
import base64
import codecs
import datetime as dt
import os
import platform
import random
import statistics
import string
import subprocess
import sys
import time
from pathlib import Path

from aish.safety.secrets.scrubber import SecretVault, sensitive_environment
from results import write_section  # bench/ is the script directory, so this resolves

SIZE = 1_000_000


def _corpus_text() -> str:
    candidates = [Path(os.environ.get("AISH_CORPUS_DIR", "/nonexistent"))]
    candidates += [Path(__file__).resolve().parents[2] / "shared" / "corpus"]
    candidates += [Path("/work/shared/corpus")]
    path = next(p / "secrets.jsonl" for p in candidates if (p / "secrets.jsonl").is_file())
    text = path.read_text(encoding="utf-8")
    return (text * (SIZE // len(text) + 1))[:SIZE]


def _inputs(rng: random.Random) -> dict[str, str]:
    letters = string.ascii_letters
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(5000)]
    prose = " ".join(rng.choice(words) for _ in range(200_000))[:SIZE]
    data = rng.randbytes(SIZE // 4)
    dump = "".join(
        f"{offset:08x}: "
        + " ".join(data[i : i + 2].hex() for i in range(offset, offset + 16, 2))
        + "  ................\n"
        for offset in range(0, len(data) - 16, 16)
    )[:SIZE]
    blob = base64.b64encode(rng.randbytes(SIZE * 3 // 4)).decode()
    return {"shell output": _corpus_text(), "words": prose, "xxd dump": dump, "base64": blob}


def _environment(rng: random.Random) -> dict[str, str]:
    alphabet = string.ascii_letters + string.digits
    return {f"APP_{n}_TOKEN": "".join(rng.choice(alphabet) for _ in range(40)) for n in range(10)}


def _inputs_and_environment() -> tuple[dict[str, str], dict[str, str]]:
    rng = random.Random(17)
    inputs = _inputs(rng)
    environment = _environment(rng)
    inputs = {
        "shell output": inputs["shell output"],
        "shell output, values reshaped": _reshaped(inputs["shell output"], environment),
        **inputs,
    }
    return inputs, environment


def _reshaped(text: str, environment: dict[str, str]) -> str:
    """`text` with each known value planted once in another shape (`rev`, `xxd -p`, spaced
    out, rot13), so the scan finds them and maps their places back to the text."""
    shapes = (
        lambda v: v[::-1],
        lambda v: v.encode().hex(),
        lambda v: " ".join(v),
        lambda v: codecs.encode(v, "rot13"),
    )
    step = len(text) // len(environment)
    parts = []
    for n, value in enumerate(environment.values()):
        parts.append(text[n * step : (n + 1) * step] + "\n" + shapes[n % len(shapes)](value) + "\n")
    return "".join(parts)


def _rate(name: str, rounds: int) -> tuple[float, float]:
    """MB/s of scrubbing input `name`, median of `rounds` fresh vaults: (wall clock, CPU)."""
    inputs, environment = _inputs_and_environment()
    text = inputs[name]
    known = sensitive_environment(environment)
    wall, cpu = [], []
    for _ in range(rounds):
        vault = SecretVault()
        vault.learn(known)
        started, started_cpu = time.perf_counter(), time.process_time()
        vault.scrub(text)
        wall.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
    megabytes = len(text) / 1e6
    return megabytes / statistics.median(wall), megabytes / statistics.median(cpu)


def _baseline_rate(source: str, name: str, rounds: int) -> tuple[float, float]:
    """The same measurement of another checkout's `src`, in its own process."""
    env = {**os.environ, "PYTHONPATH": source}
    command = [sys.executable, __file__, "--one", name, "--rounds", str(rounds)]
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    wall, cpu = result.stdout.split()
    return float(wall), float(cpu)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--baseline", help="another checkout's src directory")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # one input's rate, for --baseline
    arguments = parser.parse_args()
    if arguments.one:
        print(*_rate(arguments.one, arguments.rounds))
        return 0
    names = list(_inputs_and_environment()[0])
    header = "| input | MB/s | MB/s of CPU time |"
    if arguments.baseline:
        header += " baseline MB/s | baseline MB/s of CPU time |"
    rows = [
        f"Run {dt.date.today().isoformat()} on {platform.machine()}, Python "
        f"{platform.python_version()}; ~1 MB each, {arguments.rounds} rounds, median; a fresh "
        "vault knowing ten 40-character environment values per round.",
        "",
        header,
        "|---|---|---|---|---|" if arguments.baseline else "|---|---|---|",
    ]
    for name in names:
        rate, cpu_rate = _rate(name, arguments.rounds)
        row = f"| {name} | {rate:.2f} | {cpu_rate:.2f} |"
        if arguments.baseline:
            before, cpu_before = _baseline_rate(arguments.baseline, name, arguments.rounds)
            row += f" {before:.2f} | {cpu_before:.2f} |"
        rows.append(row)
    print("\n".join(rows))
    if not arguments.no_write:
        write_section("scrub", "## Secrets scrubber throughput (`bench/scrub.py`)", rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
