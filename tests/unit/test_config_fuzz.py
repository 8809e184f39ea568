"""Property tests: whatever the config file holds, loading it gives a Config or a ConfigError."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shimgen.errors import ConfigError
from shimgen.project.config import KEYS, OUTPUT_KEYS, Config, load_config, parse_config

toml_scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
    st.sampled_from(["executorch_", "aoti_torch_*", "__x", "_Cap", "", "a" * 80, "../../etc", "/abs"]),
)
values = st.recursive(toml_scalars, lambda inner: st.lists(inner, max_size=4), max_leaves=8)
key_names = st.one_of(st.sampled_from([*KEYS, "outputs"]), st.text(min_size=1, max_size=12))
output_tables = st.dictionaries(st.one_of(st.sampled_from(list(OUTPUT_KEYS)), st.text(max_size=8)), values, max_size=4)


def load_or_error(path: Path) -> Config | ConfigError:
    try:
        return load_config(path)
    except ConfigError as exc:
        assert exc.problems and all(isinstance(p, str) and p for p in exc.problems)
        assert all("\n" not in p for p in exc.problems), "each problem is one line"
        return exc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300))
def test_arbitrary_bytes(tmp_path, data):
    path = tmp_path / "shimgen.toml"
    path.write_bytes(data)
    load_or_error(path)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(key_names, values, max_size=6), output_tables)
def test_arbitrary_tables(tmp_path, table, outputs):
    table = dict(table)
    table["outputs"] = outputs
    try:
        config = parse_config(table, path=tmp_path / "shimgen.toml")
    except ConfigError:
        return
    # Whatever got through is usable: a valid prefix and outputs inside the project.
    assert config.prefix and not config.prefix.startswith("__")
    assert config.outputs.dir.resolve().is_relative_to(tmp_path.resolve())


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_arbitrary_text_appended_to_a_valid_config(tmp_path, tail):
    path = tmp_path / "shimgen.toml"
    path.write_text('prefix = "executorch_"\nsymbols = ["aoti_torch_x"]\n' + tail, encoding="utf-8")
    load_or_error(path)
