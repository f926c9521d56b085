"""The server's log: plain lines or one JSON object a line, at the level the host chose; uvicorn's
own loggers (errors, and the access log when asked for) go through the same handler."""

from __future__ import annotations

import json
import logging
import sys
import time


class JsonLines(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data = {"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
                "level": record.levelname.lower(), "logger": record.name, "message": record.getMessage()}
        if record.exc_info:
            data["error"] = self.formatException(record.exc_info)
        return json.dumps(data, ensure_ascii=False)


def setup(level: str, json_lines: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines() if json_lines else
                         logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers = []
        logging.getLogger(name).propagate = True
    # Libraries that talk a lot at info: only their warnings.
    for name in ("sqlalchemy", "alembic", "httpx", "asyncio"):
        logging.getLogger(name).setLevel(max(logging.WARNING, root.level))
