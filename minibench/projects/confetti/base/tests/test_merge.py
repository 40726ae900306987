from confetti.merge import deep_merge, merge_all


def test_nested_merge():
    merged = deep_merge({"db": {"host": "a", "port": 1}}, {"db": {"port": 2}})
    assert merged == {"db": {"host": "a", "port": 2}}


def test_none_removes_key():
    assert deep_merge({"a": 1, "b": 2}, {"b": None}) == {"a": 1}


def test_non_dict_replaces_dict():
    assert deep_merge({"a": {"x": 1}}, {"a": [1, 2]}) == {"a": [1, 2]}


def test_merge_all_order():
    assert merge_all([{"a": 1}, {"a": 2}, {"b": 3}]) == {"a": 2, "b": 3}
