#!/usr/bin/env python3
"""Learns the offline engine's candidate confidence from labelled real user turns.

Input: a folder of labelled sessions (`utterances-<project>.jsonl`: every user turn with a
reader's verdict keep/drop and the facts they would write; `sessions/*.jsonl`: the transcripts),
and the engine's feature dump of every candidate its rules keep (the `features` example of the
offline crate, run on those transcripts; this script runs it when given --bin).

A candidate is positive when its turn was kept and the sentence states one of the facts the
reader wrote for it (shared content words or a shared code-like token, the same crude test the
scorer uses). The model is a logistic regression with an L2 penalty, plain gradient descent
(no third-party packages).

Reported, project by project, with that project left out of the fit AND of the threshold
choice (leave-one-project-out): precision and recall at the threshold, and the pooled
precision/recall curve of the held-out predictions. The shipped weights are fitted on every
project; the shipped threshold is the lowest at which the pooled held-out predictions reach the
precision target.

  python3 scripts/precision/train.py --data DIR --bin target/release/examples/features \
      --out crates/autodream-offline/data/confidence.json
"""
import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys

WORD_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./:@#=+-]*|[\u4e00-\u9fff]")
CAMEL_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
CODE_RE = re.compile(r"[_./:=#@-]|\d")
STOP = set("""a an the and or but if then so to of in on at for with by from as is are was were be been
being it its this that these those we you i he she they them our your my me us do does did not no yes
can could should would will shall may might must have has had just also there here what which who
when where how than too very into over about up out all any some each such only own same other more
most user users""".split())


def words(text):
    out = []
    for w in WORD_RE.findall(text.lower()):
        w = w.strip(".,:;!?)(\"'`*")
        if w and (len(w) >= 3 and w not in STOP or re.match(r"[\u4e00-\u9fff]", w)):
            out.append(w)
    return out


def stem(w):
    for suf in ("ing", "ed", "es", "s"):
        if len(w) > len(suf) + 3 and w.endswith(suf):
            w = w[: -len(suf)]
            break
    return w[:-1] if len(w) > 4 and w.endswith("e") else w


def match_words(text):
    out = {stem(w) for w in words(text)}
    for tok in WORD_RE.findall(text):
        for part in re.split(r"[-_./:@#=+]", tok):
            for sub in CAMEL_RE.findall(part):
                sub = sub.lower()
                if len(sub) >= 3 and sub not in STOP:
                    out.add(stem(sub))
    return out


def says_fact(line, facts):
    lw = match_words(line)
    lcode = {w.strip("-") for w in words(line) if CODE_RE.search(w)}
    for f in facts or []:
        fw = match_words(f)
        if lw and fw and len(lw & fw) / min(len(lw), len(fw)) >= 0.35:
            return True
        if lcode & {w.strip("-") for w in words(f) if CODE_RE.search(w)}:
            return True
    return False


def project_of(source):
    return source.split("__", 1)[0]


def load(folders, rows, one_per_statement=False):
    """(project, features, label, row) for every candidate of a labelled turn.

    A resumed session copies its history, and readers label the copy `drop` ("duplicate of an
    earlier turn"): the same candidate is then fitted once as positive and once as negative.
    With `one_per_statement`, a project's candidates with the same text are one example,
    positive when any copy is."""
    labels = {}
    for data in folders:
        for fn in glob.glob(os.path.join(data, "utterances-*.jsonl")):
            for raw in open(fn, encoding="utf-8"):
                if raw.strip():
                    u = json.loads(raw)
                    labels[(u["source"], int(u["line"]))] = u
    best, order = {}, []
    for r in rows:
        u = labels.get((r["source"], r["line"]))
        if u is None:
            continue
        y = 1 if u["verdict"] == "keep" and says_fact(r["text"], u.get("facts")) else 0
        key = (project_of(r["source"]), r["text"] if one_per_statement else len(order))
        if key not in best:
            order.append((key, r))
            best[key] = y
        best[key] = max(best[key], y)
    return [(key[0], r["x"], best[key], r) for key, r in order]


def load_synthetic(spec, sessions_root, bin_path):
    """Weakly labelled candidates of a synthetic suite (agentmem format): a candidate holding every
    term of a `current` or `index` probe of its scenario is positive, one holding the terms of an
    `absent` probe is negative, any other is left out."""
    out = []
    for sc in json.load(open(spec, encoding="utf-8"))["scenarios"]:
        files = sorted(glob.glob(os.path.join(sessions_root, sc["id"], "sessions", "*.jsonl")))
        if not files:
            continue
        dump = subprocess.run([bin_path, *files], check=True, capture_output=True, text=True).stdout
        for l in dump.splitlines():
            r = json.loads(l)
            low = r["text"].lower()
            holds = lambda pr: all(t.lower() in low for t in pr.get("terms", []))
            pos = any(pr["expect"] in ("current", "index") and holds(pr) for pr in sc["probes"])
            neg = any(pr["expect"] == "absent" and holds(pr) for pr in sc["probes"])
            if pos != neg:
                out.append(("synthetic", r["x"], 1 if pos else 0, r))
    return out


def sigmoid(z):
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def fit(xs, ys, l2, epochs=3000, lr=0.5):
    n, d = len(xs), len(xs[0])
    w, b = [0.0] * d, 0.0
    for _ in range(epochs):
        gw, gb = [0.0] * d, 0.0
        for x, y in zip(xs, ys):
            e = sigmoid(b + sum(wi * xi for wi, xi in zip(w, x))) - y
            gb += e
            for i, xi in enumerate(x):
                if xi:
                    gw[i] += e * xi
        b -= lr * gb / n
        w = [wi - lr * (g / n + l2 * wi) for wi, g in zip(w, gw)]
    return w, b


def predict(w, b, x):
    return sigmoid(b + sum(wi * xi for wi, xi in zip(w, x)))


def curve(scored):
    """(threshold, precision, recall, kept) at every distinct score, high to low."""
    pos = sum(y for _, y in scored)
    out, tp, k = [], 0, 0
    for p, y in sorted(scored, key=lambda t: -t[0]):
        k += 1
        tp += y
        out.append((p, tp / k, tp / pos if pos else 0.0, k))
    return out


def threshold_for(scored, target):
    """The lowest threshold whose kept set reaches `target` precision (and keeps ≥ 3)."""
    best = 1.0
    for p, prec, _, k in curve(scored):
        if prec >= target and k >= 3:
            best = p
    return best


def at(scored, t):
    kept = [y for p, y in scored if p >= t]
    pos = sum(y for _, y in scored)
    tp = sum(kept)
    return (tp / len(kept) if kept else 1.0), (tp / pos if pos else 0.0), len(kept), tp


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True, action="append",
                    help="folder with utterances-*.jsonl and sessions/ (repeat for more projects)")
    ap.add_argument("--bin", help="the offline crate's `features` example (run on every data/sessions)")
    ap.add_argument("--features", help="a feature dump made before (instead of --bin)")
    ap.add_argument("--out", help="write the fitted weights file here")
    ap.add_argument("--synthetic", help="a synthetic suite (agentmem JSON) fitted along, weakly labelled")
    ap.add_argument("--synthetic-sessions", help="the folder its transcripts were made in (<id>/sessions/)")
    ap.add_argument("--target", type=float, default=0.9, help="precision target for the threshold")
    ap.add_argument("--l2", type=float, default=0.003)
    ap.add_argument("--threshold", type=float, help="ship this threshold instead of the one chosen")
    ap.add_argument("--repeat-bonus", type=float, default=1.5)
    ap.add_argument("--one-per-statement", action="store_true",
                    help="fit a project's candidates with the same text once (resumed sessions copy turns)")
    a = ap.parse_args()
    if a.bin:
        sessions = sorted(f for d in a.data for f in glob.glob(os.path.join(d, "sessions", "*.jsonl")))
        dump = subprocess.run([a.bin, *sessions], check=True, capture_output=True, text=True).stdout
    elif a.features:
        dump = open(a.features, encoding="utf-8").read()
    else:
        sys.exit("give --bin or --features")
    rows = [json.loads(l) for l in dump.splitlines() if l.strip()]
    data = load(a.data, rows, a.one_per_statement)
    if not data:
        sys.exit("no candidate matches a labelled turn")
    if a.synthetic:
        if not (a.bin and a.synthetic_sessions):
            sys.exit("--synthetic needs --bin and --synthetic-sessions")
        data += load_synthetic(a.synthetic, a.synthetic_sessions, a.bin)
    projects = sorted({p for p, *_ in data})
    print(f"{len(data)} candidates ({sum(y for _, _, y, _ in data)} positive) in {len(projects)} projects")

    pooled = []
    print(f"\nleave-one-project-out (threshold chosen on the other projects, target {a.target:.0%}):")
    print(f"{'project':<28}{'cands':>6}{'pos':>5}{'thr':>7}{'kept':>6}{'prec':>7}{'recall':>8}")
    for held in projects:
        train = [(x, y) for p, x, y, _ in data if p != held]
        # The threshold is chosen on real projects only.
        inner_rows = [(x, y) for p, x, y, _ in data if p != held and p != "synthetic"]
        w, b = fit([x for x, _ in train], [y for _, y in train], a.l2)
        inner = [(predict(w, b, x), y) for x, y in inner_rows]
        t = threshold_for(inner, a.target)
        test = [(predict(w, b, x), y) for p, x, y, _ in data if p == held]
        if held != "synthetic":
            pooled.extend(test)
        prec, rec, k, _ = at(test, t)
        print(f"{held:<28}{len(test):>6}{sum(y for _, y in test):>5}{t:>7.3f}{k:>6}{prec:>7.1%}{rec:>8.1%}")

    print("\npooled held-out precision/recall curve:")
    print(f"{'threshold':>10}{'kept':>6}{'prec':>7}{'recall':>8}")
    for t in [0.3, 0.4, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]:
        prec, rec, k, _ = at(pooled, t)
        print(f"{t:>10.2f}{k:>6}{prec:>7.1%}{rec:>8.1%}")
    t_all = threshold_for(pooled, a.target)
    prec, rec, k, _ = at(pooled, t_all)
    print(f"\nthreshold for {a.target:.0%}: {t_all:.3f}: held-out precision {prec:.1%}, recall {rec:.1%} ({k} kept)")
    if a.threshold is not None:
        t_all = a.threshold
        prec, rec, k, _ = at(pooled, t_all)
    print(f"shipped threshold {t_all:.3f}: held-out precision {prec:.1%}, recall {rec:.1%} ({k} kept)")

    w, b = fit([x for _, x, _, _ in data], [y for _, _, y, _ in data], a.l2)
    names = json.loads(open(a.out).read())["features"] if a.out and os.path.exists(a.out) else None
    if a.out:
        if names is None or len(names) != len(w):
            sys.exit(f"{a.out}: needs the feature names of the engine ({len(w)} features)")
        model = {"features": names, "weights": [round(v, 4) for v in w], "bias": round(b, 4),
                 "threshold": round(t_all, 4), "repeat_bonus": a.repeat_bonus}
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump(model, f, indent=1)
            f.write("\n")
        print(f"wrote {a.out}")
        for n, v in sorted(zip(names, w), key=lambda t: -abs(t[1]))[:12]:
            print(f"  {n:<22}{v:+.2f}")


if __name__ == "__main__":
    main()
