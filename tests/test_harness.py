import importlib.util
import json
from pathlib import Path

spec = importlib.util.spec_from_file_location("harness", Path(__file__).resolve().parents[1] / "benchmarks" / "harness.py")
harness = importlib.util.module_from_spec(spec)
spec.loader.exec_module(harness)


def test_machine_info_names_the_machine():
    info = harness.machine_info()
    assert info["host"] and info["cores"] >= 1 and info["ram_gib"] > 0
    assert info["numpy"] and info["date"][:2] == "20"


def test_time_it_counts_calls_and_orders_stats():
    calls = []
    stats = harness.time_it(lambda: calls.append(1), repeat=3, warmup=2)
    assert len(calls) == 5
    assert 0 <= stats["min_s"] <= stats["median_s"] <= stats["max_s"]


def test_write_results_and_print_table(tmp_path, capsys):
    rows = [
        {"graph": "kron10", "time_s": 0.0123456},
        {"graph": "grid", "time_s": 1.5, "levels": 38},
    ]
    json_path, md_path = harness.write_results("smoke", rows, {"note": "test"}, out_dir=tmp_path)
    saved = json.loads(json_path.read_text())
    assert saved["rows"] == rows and saved["meta"]["note"] == "test"
    assert json_path.name.startswith(f"smoke-{saved['meta']['machine']['date'][:10]}-")
    table = md_path.read_text()
    assert "| graph  | time_s  | levels |" in table and "| kron10 | 0.01235 |        |" in table
    again = harness.write_results("smoke", rows[:1], {"note": "again"}, out_dir=tmp_path)  # the same day: kept beside it
    assert again[0] == json_path.with_name(json_path.stem + "-2.json") and json.loads(json_path.read_text())["meta"]["note"] == "test"

    assert not json_path.with_suffix(".png").exists()  # no time column to chart
    if importlib.util.find_spec("matplotlib"):
        timed = harness.write_results("timed", [{"algorithm": "bfs", "format": "ef", "ms": 2.5}, {"algorithm": "bfs", "format": "csr", "ms": 3.5}], {}, out_dir=tmp_path)
        assert timed[0].with_suffix(".png").read_bytes()[:4] == b"\x89PNG"

    harness.print_table(rows, ["graph", "levels"])
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "| graph  | levels |" and out[3] == "| grid   | 38     |"
