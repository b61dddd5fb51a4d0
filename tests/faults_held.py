"""Faults tried by tests of their own (whole pytester runs of a throwaway suite, which a scenario's ``tmp_path``
cannot give), recorded here so that the inventory and the fault-injection suite still match one to one (issue 32)."""

from __future__ import annotations

from faults_common import held_by

held_by("report directory", "concurrent writers",
        "llm_claims_harness/tests/test_report_lock.py::test_two_runs_on_one_report_directory_keep_both_rows",
        "llm_claims_harness/tests/test_report_lock.py::test_without_the_lock_a_row_is_lost")
held_by("report directory", "dangling symlink",
        "tests/test_paths_and_locale.py::test_a_dangling_report_dir_is_a_usage_error",
        "tests/test_paths_and_locale.py::test_a_dangling_link_is_named_with_its_missing_target")
held_by("weight cache", "dangling symlink", "tests/test_paths_and_locale.py::test_a_dangling_cache_dir_is_a_usage_error")
held_by("data directory", "dangling symlink",
        "tests/test_paths_and_locale.py::test_a_dangling_link_as_the_data_directory_is_named_before_anything_is_fetched")
held_by("report directory", "C locale",
        "tests/test_paths_and_locale.py::test_a_korean_argument_under_the_c_locale_is_recorded",
        "tests/test_paths_and_locale.py::test_the_issue_reproduction_writes_its_report",
        "tests/test_paths_and_locale.py::test_the_report_would_crash_without_the_escape")
held_by("report directory", "interrupted run",
        "llm_claims_harness/tests/test_interrupted_run.py::test_an_interrupted_run_says_so",
        "llm_claims_harness/tests/test_interrupted_run.py::test_a_complete_run_is_not_marked_and_a_carried_row_stays_marked")
held_by("option values", "stale id",
        "llm_claims_harness/tests/test_selection_hint.py::test_a_stale_id_says_what_exists",
        "llm_claims_harness/tests/test_selection_hint.py::test_unmatched_hints")
