#!/usr/bin/env python3
"""Fit the answer-assurance model (`src/ask/assurance.toml`): the probability that an
answer is right, from the signals every answer reports (`assurance` in its JSON).

Data (each question answered by the build under test):
  * document sets with expected values and near misses (`attest eval documents --json`):
    an answer is right when a cited quote holds the expected value and the value it
    names, if any, is the expected one; an answered near miss is wrong;
  * QASPER development papers, each question asked of its own paper, split by the
    SHA-256 of the file name as `fit_relevance.py` splits them (5 in 10 fit, 2 in 10
    validate, 3 in 10 never read here): right when a cited quote holds an expected
    string; an answered unanswerable question is wrong.

Fit: logistic regression, Newton + ridge 1 (`fit_relevance.fit`). Printed: how often
validation answers are right per band of probability (the calibration table), and the
lowest probability from which nine answers in ten are right, if any. The bound of
`high` is chosen on the validation answers (`high_bound`): the least probability at
which nine in ten answers that state a value in one step with no differing source are
right (1.01, never, when none is); `--write` writes it as `[levels] high_from`, and the
binary keeps an answer the frame rules rate `high` at `high` only from that bound.

The value model (`src/ask/value.toml`) is fitted on the same answers: every value read
for a question (`assurance.value_check`, named or not) is a row, right when it is the
expected value (`value_read` of the document sets; for QASPER, when the value is written
in the question's answer or an alternative answer, as a whole word). Its bound is the
least probability from which, on the validation answers, at least VALUE_PRECISION of the
values named are right; when none reaches it, the bound at which naming values gains
most on the validation answers, a right value counting 1 and a wrong one -WRONG_COST (a
wrong value is worse than a missing one; 0 when naming every value gains most). A second
bound, `answer_from` (at most the first), says when a value question whose value is not
named is still answered, its quotes cited without a value: from the probability at which
answering gains most on the validation questions, a cited expected value counting 1 and
an answered near miss -WRONG_COST. A value's check is made before either bound is
applied, and every answer with signals is a row whatever its status, so the value rows
are the same whatever bounds the build that collects them holds. An answer's signals say
whether a value was named, so the answer model's rows follow the naming bound: after the
bound moves, run the script once more on the build holding it; from then on re-running
it writes the same files.

    python3 scripts/fit_assurance.py BIN --documents FIT_DIR... \
        --validate-documents DIR... --qasper ../shared/data/qasper \
        --qasper-index /tmp/idx-qasper [--write] [--write-value]
"""
import argparse, importlib.util, json, math, os, re, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("fr", os.path.join(HERE, "fit_relevance.py"))
fr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fr)

FEATURES = ["value", "no_value", "precise", "one_step", "statements", "retrieval",
            "lead_relevance", "coverage", "differ"]
VALUE_FEATURES = ["name", "precise", "money", "relevance", "first", "agree", "rivals",
                  "coverage", "cell", "one_step"]
VALUE_PRECISION = 0.95
# When no bound reaches VALUE_PRECISION: how many missing values one wrong value costs.
WRONG_COST = 3


def value_features(c):
    x = []
    for k in VALUE_FEATURES:
        v = c[k]
        if k in ("agree", "rivals"):
            v = math.log(1 + v)
        x.append(float(v))
    return x


def features(s):
    import math
    x = []
    for k in FEATURES:
        v = s[k]
        if k == "statements":
            v = math.log(1 + v)
        x.append(float(v))
    return x


def documents(bin_, dataset, index):
    """Rows of the answer model and of the value model from one document set."""
    out = subprocess.run([bin_, "eval", "documents", "--dataset", dataset, "--eval-index",
                          index, "--json"], capture_output=True, text=True)
    if not out.stdout.strip():
        sys.exit(f"{dataset}: no report: {out.stderr[-400:]}")
    rows, values = [], []
    for o in json.loads(out.stdout)["outcomes"]:
        s = o.get("assurance")
        if s is None:
            continue
        # A value read but not named may leave its answer unanswered: both models still
        # learn from it.
        c = s.get("value_check")
        cited = o["answerable"] and o["value_cited"]
        if c is not None:
            values.append((value_features(c), int(bool(o.get("value_read"))), c["given"],
                           outcome(o["answerable"], cited)))
        # Every answer the signals were computed for, whether or not the value bounds then
        # left it unanswered: the rows do not depend on the bounds being fitted.
        right = cited and o.get("value_named") is not False
        rows.append((features(s), int(right)))
    return rows, values


def outcome(answerable, cited):
    """What answering a question gains: 1 when a cited quote holds the expected value,
    -1 when the question is a near miss, 0 when the quotes miss the value."""
    return 1 if answerable and cited else (-1 if not answerable else 0)


def written_in(value, texts):
    v = fr.norm(value)
    if not v:
        return False
    pat = re.compile(r"(?<![\w.])" + re.escape(v) + r"(?![\w])")
    return any(pat.search(fr.norm(t)) for t in texts)


def qasper(bin_, data, index, part):
    qs = [json.loads(l) for l in open(os.path.join(data, "questions.jsonl"))]
    qs = [q for q in qs if fr.split_of(q["doc"]) == part]
    docs = os.path.join(os.path.abspath(data), "docs")
    if not os.path.isdir(index):
        subprocess.run([bin_, "--index", index, "ingest", docs], check=True,
                       capture_output=True)
    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(pool.map(
            lambda q: fr.ask(bin_, index, q["question"], f"{docs}/{q['doc']}"), qs))
    rows, values = [], []
    for q, a in zip(qs, answers):
        s = a.get("assurance")
        if s is None:
            continue
        ids = {c for st in a.get("sentences", []) for c in st.get("citations", [])}
        quotes = [fr.norm(e.get("quote")) for e in a.get("evidence", []) if e.get("id") in ids]
        expect = [fr.norm(x) for x in q.get("expect", [])] if q["answerable"] else []
        cited = any(x and x in t for x in expect for t in quotes)
        rows.append((features(s), int(cited)))
        c = s.get("value_check")
        if c is not None:
            said = [q.get("answer") or ""] + q.get("alt_answers", [])
            if q.get("expect_source") == "answer_span":
                said += q.get("expect", [])
            right = q["answerable"] and written_in(c["value"]["raw"], said)
            values.append((value_features(c), int(right), c["given"],
                           outcome(q["answerable"], cited)))
    return rows, values


def bound(ps, ys, share, least=10):
    for t in sorted(set(ps)):
        sel = [y for p, y in zip(ps, ys) if p >= t]
        if len(sel) >= least and sum(sel) / len(sel) >= share:
            return round(t, 3)
    return 1.0


def cost_bound(ps, ys, cost):
    """The bound at which naming the values at or above it gains most, a right value
    counting 1 and a wrong one -COST (ties: the lower bound, naming more); 0 names all."""
    return answer_bound(ps, [1 if y else -1 for y in ys], cost, 1.0)


def answer_bound(ps, outcomes, cost, most):
    """The least probability of the value read below which a value question is better not
    answered: the bound (at most MOST) at which answering the questions at or above it
    gains most, a cited expected value counting 1 and an answered near miss -COST (ties:
    the lower bound, answering more)."""
    gain = lambda t: sum(1 if o == 1 else (-cost if o == -1 else 0)
                         for p, o in zip(ps, outcomes) if p >= t)
    best, best_gain = 0.0, gain(0.0)
    for t in sorted(set(ps)):
        if t > most:
            break
        if gain(t) > best_gain:
            best, best_gain = math.floor(t * 1000) / 1000, gain(t)
    return best


def calibration(ps, ys, what):
    """Print how often validation rows are right per band of probability."""
    for lo in [k / 10 for k in range(10)]:
        band = [y for p, y in zip(ps, ys) if lo <= p < lo + 0.1]
        if band:
            print(f"  probability {lo:.1f}-{lo + 0.1:.1f}: {len(band)} {what}, "
                  f"right {sum(band)} ({sum(band) / len(band):.2f})")


def may_be_high(x):
    """Whether an answer with features X may be `high`: it states a value, in one step,
    and its sources do not differ (the rule `Model::level` applies)."""
    return x[0] == 1.0 and x[3] == 1.0 and x[8] == 0.0


def high_bound(ps, ys, xs):
    """The least probability from which, on the validation answers that may be high, nine
    answers in ten are right (with ten answers or more); 1.01 when none is: no answer is
    then `high`."""
    hp = [(p, y) for p, y, x in zip(ps, ys, xs) if may_be_high(x)]
    high = bound([p for p, _ in hp], [y for _, y in hp], 0.90)
    return 1.01 if high >= 1.0 else high


def reliability(ps, ys, xs, high):
    """Print how the validation answers that may be high fare above and below the bound."""
    for name, keep in (("at or above", lambda p: p >= high), ("below", lambda p: p < high)):
        sel = [y for p, y, x in zip(ps, ys, xs) if may_be_high(x) and keep(p)]
        share = f"{sum(sel) / len(sel):.2f}" if sel else "-"
        print(f"  may be high, {name} the bound: {len(sel)} answers, right {sum(sel)} ({share})")


def write_model(name, flag, features, w, extra, fitted_on):
    """Write a fitted model to src/ask/NAME: weights, bias, EXTRA lines, [fitted_on]."""
    path = os.path.join(HERE, "..", "src", "ask", name)
    with open(path, "w") as f:
        f.write(f"# Written by scripts/fit_assurance.py {flag}; see docs/fitting.md.\n")
        f.write(f"# features: {', '.join(features)}\n")
        f.write(f"weights = [{', '.join(f'{v:.6f}' for v in w[1:])}]\n")
        f.write(f"bias = {w[0]:.6f}\n")
        f.writelines(f"{line}\n" for line in extra)
        f.write("\n[fitted_on]\n")
        f.writelines(f"{k} = {v}\n" for k, v in fitted_on)


def value_model(fit_values, val_values, write):
    """Fit the value model, choose its bound on the validation values, report both."""
    xs, ys = [r[0] for r in fit_values], [r[1] for r in fit_values]
    w = fr.fit(xs, ys)
    ps = [fr.prob(w, r[0]) for r in val_values]
    vy = [r[1] for r in val_values]
    print(f"values: fit {len(ys)} (right {sum(ys)}), validation {len(vy)} (right {sum(vy)})")
    calibration(ps, vy, "values")
    b = bound(ps, vy, VALUE_PRECISION, least=5)
    if b >= 1.0:
        b = cost_bound(ps, vy, WRONG_COST)
        print(f"no bound names values right {VALUE_PRECISION:.0%} of the time: the bound "
              f"is the one that gains most when a wrong value costs {WRONG_COST} missing ones")
    kept = [y for p, y in zip(ps, vy) if p >= b]
    print(f"value bound {b}: validation values named {len(kept)}, right {sum(kept)}, "
          f"wrong {len(kept) - sum(kept)} (of {len(vy)} read, {sum(vy)} right)")
    vo = [r[3] for r in val_values]
    a = answer_bound(ps, vo, WRONG_COST, b)
    asked = [o for p, o in zip(ps, vo) if p >= a]
    print(f"answered from {a}: validation value questions answered {len(asked)}, value cited "
          f"{asked.count(1)}, near misses {asked.count(-1)} (of {vo.count(1)} cited, "
          f"{vo.count(-1)} near misses)")
    print("value weights", dict(zip(["bias"] + VALUE_FEATURES, [round(v, 4) for v in w])))
    if write:
        lines = [f"bound = {b}", f"answer_from = {a}"]
        write_model("value.toml", "--write-value", VALUE_FEATURES, w, lines, [
            ("fit_values", len(ys)), ("fit_right", sum(ys)),
            ("validation_values", len(vy)), ("validation_right", sum(vy)),
            ("validation_named", len(kept)), ("validation_named_right", sum(kept)),
            ("validation_answered", len(asked)), ("validation_answered_cited", asked.count(1)),
            ("validation_answered_near_misses", asked.count(-1))])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--documents", nargs="*", default=[])
    ap.add_argument("--validate-documents", nargs="*", default=[])
    ap.add_argument("--qasper")
    ap.add_argument("--qasper-index")
    ap.add_argument("--index-root", default="/tmp/attest-fit-assurance")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--write-value", action="store_true")
    ap.add_argument("--rows", help="write the collected rows to this JSON file")
    a = ap.parse_args()
    os.makedirs(a.index_root, exist_ok=True)
    idx = lambda d: os.path.join(a.index_root, os.path.basename(os.path.normpath(d)))
    fit_rows, val_rows, fit_values, val_values = [], [], [], []
    for d in a.documents:
        r, v = documents(a.binary, d, idx(d))
        fit_rows += r
        fit_values += v
    for d in a.validate_documents:
        r, v = documents(a.binary, d, idx(d))
        val_rows += r
        val_values += v
    if a.qasper:
        for part, rows, values in (("fit", fit_rows, fit_values), ("val", val_rows, val_values)):
            r, v = qasper(a.binary, a.qasper, a.qasper_index, part)
            rows += r
            values += v
    if a.rows:
        with open(a.rows, "w") as f:
            json.dump(dict(fit_rows=fit_rows, val_rows=val_rows, fit_values=fit_values,
                           val_values=val_values), f)
    value_model(fit_values, val_values, a.write_value)
    xs, ys = [r[0] for r in fit_rows], [r[1] for r in fit_rows]
    w = fr.fit(xs, ys)
    ps = [fr.prob(w, r[0]) for r in val_rows]
    vy = [r[1] for r in val_rows]
    print(f"fit answers {len(ys)} (right {sum(ys)}), validation answers {len(vy)} "
          f"(right {sum(vy)})")
    calibration(ps, vy, "answers")
    print(f"right nine times in ten from: {bound(ps, vy, 0.90)} (1.0: nowhere)")
    vx = [r[0] for r in val_rows]
    high = high_bound(ps, vy, vx)
    print(f"high from {high} (1.01: never); validation answers:")
    reliability(ps, vy, vx, high)
    print("weights", dict(zip(["bias"] + FEATURES, [round(v, 4) for v in w])))
    if a.write:
        extra = ["", "[levels]", f"high_from = {high}"]
        write_model("assurance.toml", "--write", FEATURES, w, extra, [
            ("fit_answers", len(ys)), ("fit_right", sum(ys)),
            ("validation_answers", len(vy)), ("validation_right", sum(vy))])


if __name__ == "__main__":
    main()
