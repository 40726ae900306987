#!/usr/bin/env python3
"""Fill in the `expected` of every case in a harness-cases file with what the real SWE-bench harness computes.

    PYTHONPATH=<SWE-bench checkout>:<stubs> python3 scripts/harness-expected.py test/fixtures/harness-5.0.2/cases.json

The checkout is a `fetch` of SWE-bench/SWE-bench at the release the file names (never committed here). Debian's
python3-unidiff, -requests, -dotenv, -yaml, -tqdm, -docker and -tenacity import it; `modal` and `datasets` need
only stub modules, since grading never calls them. The cases' inputs are the harness' own tests'
(tests/test_grading_*.py, test_infra_failure.py, test_log_parsers_*.py); the TypeScript tests in
test/validation/harness-cases.test.ts check locfix against the values this writes.
"""

import json
import os
import sys
import tempfile

from swebench.harness.constants import EvalType
from swebench.harness.grading import (
    get_eval_report,
    get_eval_tests_report,
    get_resolution_status,
    parse_test_exit_code,
    test_failed,
    test_maintained,
    test_passed,
)
from swebench.harness.infra_failure import classify_text
from swebench.harness.log_parsers import PARSER_REGISTRY
from swebench.harness.utils import record_test_exit_code
from swebench.types import TestSpec


def spec_of(case):
    return TestSpec(
        instance_id="x__x-1",
        image="img",
        eval_script_list=[],
        repo="x/x",
        version="1.0",
        FAIL_TO_PASS=case.get("FAIL_TO_PASS", []),
        PASS_TO_PASS=case.get("PASS_TO_PASS", []),
        log_parser=case["log_parser"],
        eval_type=case.get("eval_type", "pass_and_fail"),
    )


def eval_report(case):
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "test_output.txt")
        with open(log, "w") as f:
            f.write(case["log"])
        prediction = {"instance_id": "x__x-1", "model_name_or_path": "m", "model_patch": case["model_patch"]}
        return get_eval_report(spec_of(case), prediction, log, include_tests_status=True)["x__x-1"]


def tests_report(case):
    gold = {"FAIL_TO_PASS": case["FAIL_TO_PASS"], "PASS_TO_PASS": case["PASS_TO_PASS"], "FAIL_TO_FAIL": [], "PASS_TO_FAIL": []}
    report = get_eval_tests_report(case["status_map"], gold, eval_type=EvalType(case["eval_type"]))
    return {"report": report, "resolution": get_resolution_status(report)}


def expected(case):
    kind = case["kind"]
    if kind == "eval_report":
        return eval_report(case)
    if kind == "tests_report":
        return tests_report(case)
    if kind == "predicates":
        sm = case["status_map"]
        return {"passed": test_passed(case["case"], sm), "failed": test_failed(case["case"], sm), "maintained": test_maintained(case["case"], sm)}
    if kind == "parser":
        return PARSER_REGISTRY[case["log_parser"]](case["log"], None)
    if kind == "exit_code":
        return parse_test_exit_code(case["text"])
    if kind == "infra":
        found = classify_text(case["text"])
        return list(found) if found else None
    if kind == "record_exit_code":
        return record_test_exit_code(case["script"])
    raise ValueError(f"unknown case kind {kind!r}")


def main(path):
    with open(path) as f:
        data = json.load(f)
    for case in data["cases"]:
        case["expected"] = expected(case)
    with open(path, "w") as f:
        json.dump(data, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{len(data['cases'])} cases written to {path}")


if __name__ == "__main__":
    main(sys.argv[1])
