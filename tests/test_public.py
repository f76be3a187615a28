import demine


def test_all_names_exist_and_are_sorted_without_duplicates() -> None:
    names = demine.__all__
    assert len(set(names)) == len(names)
    for name in names:
        assert hasattr(demine, name), name


def test_every_public_class_and_function_is_exported() -> None:
    public = {
        n
        for n, v in vars(demine).items()
        if not n.startswith("_")
        and (isinstance(v, type) or callable(v))
        and getattr(v, "__module__", "").startswith("demine")
    }
    assert public <= set(demine.__all__)


def test_the_top_level_quick_start_names_work() -> None:
    p = demine.Position.from_text("3x1x1\n1HH")
    a = demine.analyze(p)
    assert a.solutions == 1 and a.mines == {1} and a.safe == {2}
