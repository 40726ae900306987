import json

import pytest

from confetti import Config, ConfigFileError, Field, Schema, ValidationError

SCHEMA = Schema(
    {
        "server.host": Field(str, default="127.0.0.1"),
        "server.port": Field(int, default=8000),
        "server.workers": Field(int, default=2),
        "log.level": Field(str, default="info", choices=["debug", "info", "warning"]),
        "cache.ttl": Field("duration", default="5m"),
    }
)


def test_defaults_only():
    config = Config.from_sources(SCHEMA, environ={})
    assert config["server.port"] == 8000
    assert config["cache.ttl"] == 300.0


def test_file_then_env_then_overrides(tmp_path):
    path = tmp_path / "app.json"
    path.write_text(json.dumps({"server": {"port": 9000, "workers": 4}}))
    environ = {"APP_SERVER__PORT": "9100"}
    config = Config.from_sources(SCHEMA, files=[path], env_prefix="APP", environ=environ, overrides={"server": {"workers": 8}})
    assert config["server.port"] == 9100
    assert config["server.workers"] == 8


def test_toml_file(tmp_path):
    path = tmp_path / "app.toml"
    path.write_text('[log]\nlevel = "debug"\n')
    assert Config.from_sources(SCHEMA, files=[path])["log.level"] == "debug"


def test_validation_errors_are_collected():
    with pytest.raises(ValidationError) as info:
        Config.from_sources(SCHEMA, overrides={"server": {"port": "eighty"}, "log": {"level": "loud"}, "extra": 1})
    assert set(info.value.errors) == {"server.port", "log.level", "extra"}


def test_missing_file(tmp_path):
    with pytest.raises(ConfigFileError):
        Config.from_sources(SCHEMA, files=[tmp_path / "nope.json"])


def test_values_are_read_only():
    config = Config.from_sources(SCHEMA)
    with pytest.raises(TypeError):
        config.as_dict()["server"]["port"] = 1


def test_defaults_are_reused_unchanged():
    defaults = {"server": {"port": 7000, "workers": 3}}
    first = Config.from_sources(defaults=defaults, overrides={"server": {"port": 7100}})
    second = Config.from_sources(defaults=defaults)
    assert first["server.port"] == 7100
    assert second["server.port"] == 7000
    assert defaults == {"server": {"port": 7000, "workers": 3}}
