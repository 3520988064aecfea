"""Every public name of the package, and every public method and attribute of its classes,
has a docstring (the Rust doc comments become them)."""

import inspect

import costbo


def test_every_public_name_has_a_docstring():
    missing = []
    for name in costbo.__all__:
        obj = getattr(costbo, name)
        if inspect.isclass(obj) or callable(obj):
            if not (obj.__doc__ or "").strip():
                missing.append(name)
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if not (getattr(member, "__doc__", None) or "").strip():
                    missing.append(f"{name}.{attr}")
    assert missing == []
