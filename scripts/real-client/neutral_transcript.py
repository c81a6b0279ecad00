"""Copies a transcript of the real client for the fixtures: the scratch folder's path becomes
/home/dev (and its sanitised form -home-dev), and what the client itself wrote at length (its
system prompt, tool list, skill and agent listings) is replaced by a note of its size. The
conversation, the tool calls and results, and the pieces of the request that hold the
reminders and the loaded MEMORY.md are kept as written.

    python3 neutral_transcript.py SCRATCH_DIR < transcript.jsonl > fixture.jsonl
"""
import json
import re
import sys

scratch = sys.argv[1].rstrip("/")
sanitised = re.sub(r"[^A-Za-z0-9]", "-", scratch)
KEEP = {"user", "assistant", "system", "summary"}
LONG = 120


def shorten(v):
    if isinstance(v, str):
        return v if len(v) <= LONG else f"[{len(v)} characters of the client's own text left out]"
    if isinstance(v, list):
        return [shorten(x) for x in v]
    if isinstance(v, dict):
        return {k: shorten(x) for k, x in v.items()}
    return v


for line in sys.stdin:
    line = line.rstrip("\n")
    if not line:
        continue
    line = line.replace(scratch, "/home/dev").replace(sanitised, "-home-dev")
    entry = json.loads(line)
    kind = entry.get("type")
    blob_user = kind == "api-request-blob" and (entry.get("message") or {}).get("role") == "user"
    if kind not in KEEP and not blob_user:
        entry = shorten(entry)
    print(json.dumps(entry, ensure_ascii=False, separators=(",", ":")))
