"""``aish-testllm``: run the scripted test model server until SIGTERM/SIGINT.

Prints exactly one line, the base URL (``http://127.0.0.1:PORT``), once it is listening.
Exit status: 0 after a signal, 2 for a bad scenario file or arguments, 1 if it cannot listen.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path
from types import FrameType

from aish_testllm.scenario import DEFAULT_SCENARIO, ScenarioError, load_scenario, parse_scenario
from aish_testllm.server import TestLLMServer


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aish-testllm",
        description="Scripted OpenAI/Anthropic-compatible model server for tests and demos.",
    )
    parser.add_argument("--scenario", type=Path, help="scenario JSON file (default: built-in)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=0, help="port (0: pick a free one)")
    parser.add_argument("--log", type=Path, help="append one JSON line per request to this file")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    args = _parser().parse_args(argv)
    try:
        if args.scenario is not None:
            scenario = load_scenario(args.scenario)
        else:
            scenario = parse_scenario(DEFAULT_SCENARIO)
    except ScenarioError as exc:
        print(f"aish-testllm: {args.scenario}: {exc}", file=sys.stderr)
        return 2

    if args.log is not None:
        try:
            args.log.open("a", encoding="utf-8").close()
        except OSError as exc:
            print(f"aish-testllm: cannot open log file {args.log}: {exc}", file=sys.stderr)
            return 2

    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        server = TestLLMServer(scenario, log_path=args.log, host=args.host, port=args.port)
    except OSError as exc:
        print(f"aish-testllm: cannot serve on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    with server:
        print(server.url, flush=True)
        while not stop.wait(0.5):
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
