from confetti.env import env_key_to_path, env_layer, read_dotenv


def test_key_to_path():
    assert env_key_to_path("APP_DB__HOST", "APP") == "db.host"
    assert env_key_to_path("OTHER_PORT", "APP") is None


def test_env_layer():
    environ = {"APP_PORT": "9000", "APP_DB__HOST": "db", "HOME": "/root"}
    assert env_layer("APP", environ) == {"port": "9000", "db": {"host": "db"}}


def test_read_dotenv():
    text = "# comment\nexport A=1\nB='two words'\nC=3 # trailing\n"
    assert read_dotenv(text) == {"A": "1", "B": "two words", "C": "3"}
