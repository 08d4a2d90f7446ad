#!/usr/bin/env python3
"""An example scoring command for meshnode: a language model behind
`scorer: command`.

meshnode runs it with one request JSON object on stdin (docs/scoring.md,
"The command scorer") and reads one response object from stdout. It sends
prompt.md and the trace to a model, checks the answer strictly, and fails
(exit 1, the reason on stderr) rather than guess: the node then fails the
item with that reason and publishes nothing.

The model judges substance, uniqueness, specificity, actionability and
structure. Freshness is arithmetic on dates, which models get wrong, so
this script computes it with the heuristic's steps. A thin note (under 40
words, the node's count in the request's "words": prose and code, not the
title, headings or header fields) is capped here too, whatever the model
says.

Pick the model with the environment:

  MESHNODE_MODEL_COMMAND  a command that reads the prompt on stdin and
                          prints the answer, e.g. "llm -m gpt-4o-mini" or
                          "ollama run llama3.1"
  OPENAI_BASE_URL         or an OpenAI-compatible API, e.g.
                          http://127.0.0.1:11434/v1, with OPENAI_API_KEY
                          (optional) and MESHNODE_MODEL (the model name)
  MESHNODE_MODEL_TIMEOUT  seconds to wait for the model (default 50; keep
                          it under mesh.yaml's scorer_timeout)

mesh.yaml:

  scorer: command
  scorer_command: [python3, docs/scorer/llm-scorer.py]

Standard library only.
"""

import json
import os
import shlex
import subprocess
import sys
import urllib.request
from datetime import datetime, timezone

MODEL_DIMENSIONS = ["substance", "uniqueness", "specificity", "actionability", "structure"]
MAX_BODY_CHARS = 24000  # of the body sent to the model; longer traces are cut with a note
MAX_ANSWER_BYTES = 1 << 20
THIN_WORDS = 40
# Freshness steps of the heuristic (docs/scoring.md): age in days -> score.
FRESHNESS_STEPS = [(3, 5), (7, 4), (15, 3), (30, 2), (90, 1)]
PROMPT_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prompt.md")


def fail(msg):
    sys.stderr.write("llm-scorer: " + msg + "\n")
    sys.exit(1)


def build_prompt(req):
    with open(PROMPT_FILE, encoding="utf-8") as f:
        rubric = f.read()
    body = req.get("body") or ""
    if len(body) > MAX_BODY_CHARS:
        body = body[:MAX_BODY_CHARS] + "\n\n[trace cut at %d characters]" % MAX_BODY_CHARS
    head = [
        "Title: " + (req.get("title") or "(none)"),
        "Author: " + (req.get("agent") or "(unknown)"),
        "Type: " + (req.get("type") or "(none)"),
        "Fields: " + json.dumps(req.get("fields") or {}, sort_keys=True),
        "Cites: " + ", ".join(req.get("cites") or []),
        "Words: %d (prose and code, not the title, headings or fields)" % req["words"],
    ]
    return rubric + "\n\n--- TRACE ---\n" + "\n".join(head) + "\n\n" + body + "\n--- END OF TRACE ---\n"


def ask_model(prompt):
    timeout = float(os.environ.get("MESHNODE_MODEL_TIMEOUT", "50"))
    command = os.environ.get("MESHNODE_MODEL_COMMAND", "").strip()
    if command:
        try:
            p = subprocess.run(shlex.split(command), input=prompt.encode("utf-8"),
                               capture_output=True, timeout=timeout)
        except (OSError, subprocess.TimeoutExpired) as e:
            fail("model command: %s" % e)
        if p.returncode != 0:
            fail("model command exited %d: %s" % (p.returncode, p.stderr.decode("utf-8", "replace").strip()[-500:]))
        return p.stdout[:MAX_ANSWER_BYTES].decode("utf-8", "replace")
    base = os.environ.get("OPENAI_BASE_URL", "").strip()
    if not base:
        fail("set MESHNODE_MODEL_COMMAND, or OPENAI_BASE_URL and MESHNODE_MODEL")
    payload = {
        "model": os.environ.get("MESHNODE_MODEL", ""),
        "temperature": 0,
        "messages": [{"role": "user", "content": prompt}],
    }
    headers = {"Content-Type": "application/json"}
    if os.environ.get("OPENAI_API_KEY"):
        headers["Authorization"] = "Bearer " + os.environ["OPENAI_API_KEY"]
    r = urllib.request.Request(base.rstrip("/") + "/chat/completions",
                               data=json.dumps(payload).encode("utf-8"), headers=headers)
    try:
        with urllib.request.urlopen(r, timeout=timeout) as resp:
            data = resp.read(MAX_ANSWER_BYTES + 1)
    except Exception as e:  # any network failure fails the item with its reason
        fail("model API: %s" % e)
    if len(data) > MAX_ANSWER_BYTES:
        fail("model API answer exceeds %d bytes" % MAX_ANSWER_BYTES)
    try:
        return json.loads(data)["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as e:
        fail("model API answer is not a chat completion: %s" % e)


def parse_answer(text):
    """The first JSON object in the answer, checked strictly."""
    start = text.find("{")
    if start < 0:
        fail("model answer holds no JSON object")
    try:
        obj, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError as e:
        fail("model answer is not JSON: %s" % e)
    scores = obj.get("scores") if isinstance(obj, dict) else None
    if not isinstance(scores, dict):
        fail('model answer has no "scores" object')
    out = {}
    for d in MODEL_DIMENSIONS:
        v = scores.get(d)
        if isinstance(v, bool) or not isinstance(v, int):
            fail("model answer: %s = %r is not an integer" % (d, v))
        if v < 0 or v > 5:
            fail("model answer: %s = %d is outside 0-5" % (d, v))
        out[d] = v
    reasons = obj.get("reasons") if isinstance(obj.get("reasons"), dict) else {}
    why = {d: [str(reasons[d])] for d in MODEL_DIMENSIONS if reasons.get(d)}
    return out, why, str(obj.get("notes") or "")


def parse_time(s):
    if not s:
        return None
    for text in (s.replace("Z", "+00:00"), s[:10]):
        try:
            t = datetime.fromisoformat(text)
        except ValueError:
            continue
        return t if t.tzinfo else t.replace(tzinfo=timezone.utc)
    return None


def freshness(req):
    when = parse_time(req.get("submitted")) or parse_time(req.get("date"))
    now = parse_time(req.get("now")) or datetime.now(timezone.utc)
    if when is None:
        return 1, ["no submitted time or date: age unknown"]
    days = (now - when).total_seconds() / 86400
    if days < -1:
        return 1, ["dated in the future"]
    score = next((s for limit, s in FRESHNESS_STEPS if days <= limit), 0)
    why = ["%d days old" % max(int(days), 0)]
    if not req.get("cites") and not req.get("builds_on"):
        score = max(score - 1, 0)
        why.append("-1 cites or builds on no earlier trace")
    return score, why


def main():
    try:
        req = json.load(sys.stdin)
    except ValueError as e:
        fail("request is not JSON: %s" % e)
    n = req.get("words")
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        fail("request has no word count (\"words\"): this script needs a node that sends one")
    scores, reasons, notes = parse_answer(ask_model(build_prompt(req)))
    if n < THIN_WORDS:
        for d, cap in (("substance", 1), ("uniqueness", 0), ("specificity", 0), ("actionability", 0)):
            if scores[d] > cap:
                scores[d] = cap
                reasons.setdefault(d, []).append("capped at %d: a thin note of %d words" % (cap, n))
    scores["freshness"], reasons["freshness"] = freshness(req)
    json.dump({"scores": scores, "notes": notes, "reasons": reasons}, sys.stdout, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
