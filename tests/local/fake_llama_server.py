"""A tiny stand-in for `llama-server`, for lifecycle tests (never a model).

Accepts the real command line, serves `/health` and `/v1/chat/completions` on the given
port. Behaviour comes from the environment:

- FAKE_UNHEALTHY: answer /health with 503 this many times first (the model "loads").
- FAKE_MODE=exit: print a message and exit 3 at once; FAKE_MODE=never: always 503.
- FAKE_ARGS_FILE: write the received argv there as JSON.
- FAKE_NO_CACHE=1: report 0 cached tokens always; otherwise the "cache" is the prefix shared
  with the previous prompt (4 characters per token), like one llama.cpp slot.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

state: dict[str, object] = {"unhealthy": int(os.environ.get("FAKE_UNHEALTHY", "0")), "last": ""}
MODE = os.environ.get("FAKE_MODE", "")


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, body: dict[str, object]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path != "/health":
            self._send(404, {"error": "not found"})
        elif MODE == "never" or int(state["unhealthy"]) > 0:
            state["unhealthy"] = int(state["unhealthy"]) - 1
            self._send(503, {"error": {"message": "Loading model"}})
        else:
            self._send(200, {"status": "ok"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        request = json.loads(self.rfile.read(length))
        text = "".join(m["content"] for m in request["messages"])
        last = str(state["last"])
        shared = 0
        while shared < min(len(text), len(last)) and text[shared] == last[shared]:
            shared += 1
        state["last"] = text
        prompt = len(text) // 4
        cached = 0 if os.environ.get("FAKE_NO_CACHE") else min(shared // 4, prompt - 1)
        self._send(
            200,
            {
                "model": request.get("model"),
                "choices": [{"message": {"role": "assistant", "content": '{"answer": "ok"}'}}],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": 5,
                    "prompt_tokens_details": {"cached_tokens": cached},
                },
                "timings": {"cache_n": cached, "prompt_n": prompt - cached, "prompt_ms": 1.0},
                "echo_format": request.get("response_format"),
            },
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    args, _ = parser.parse_known_args()
    if os.environ.get("FAKE_ARGS_FILE"):
        with open(os.environ["FAKE_ARGS_FILE"], "w") as out:
            json.dump(sys.argv[1:], out)
    if MODE == "exit":
        print("fake llama-server: cannot load model", flush=True)
        sys.exit(3)
    ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
