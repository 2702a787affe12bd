"""Every class of the package is immutable, as hashlib's types are: from CPython 3.10 on, setting
or deleting an attribute of a class is hashlib's ``TypeError`` (the extension sets
``Py_TPFLAGS_IMMUTABLETYPE`` on each class at import, src/ffi.rs, the abi3 wheel included).
CPython 3.9 has no such flag: there the classes stay ordinary ones. Instances work as before."""

import copy
import hashlib
import pickle
import sys

import pytest

import parhash
import parhash.format
from parhash import _parhash

#: The extension's classes (parhash.Hash, parhash.blake2b, parhash.format.Entry...).
CLASSES = sorted(
    (value for value in vars(_parhash).values() if isinstance(value, type)),
    key=lambda cls: (cls.__module__, cls.__qualname__),
)

since_310 = pytest.mark.skipif(
    sys.version_info < (3, 10), reason="Py_TPFLAGS_IMMUTABLETYPE is new in CPython 3.10"
)


def _tp_name(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


def test_every_public_class_is_one_of_the_extension_s():
    public = {
        value
        for module in (parhash, parhash.format)
        for value in vars(module).values()
        if isinstance(value, type) and value.__module__.startswith("parhash")
    }
    assert public <= set(CLASSES)
    names = {cls.__name__ for cls in CLASSES}
    for name in ["Hash", "Constructor", "blake2b", "blake2s", "blake3", "FileDigests",
                 "PartPlan", "Entry", "Step", "Checker", "ListCheck", "Walk"]:  # fmt: skip
        assert name in names
    # The constructors' objects are of these classes.
    for constructor in [parhash.sha256, parhash.md5, parhash.sha3_256, parhash.shake_128]:
        assert type(constructor()) in CLASSES
    assert type(parhash.sha256) in CLASSES


def _hashlib_message(attribute):
    """hashlib's own message for setting `attribute` on its type, and that type's name."""
    hashlib_type = type(hashlib.sha256())
    with pytest.raises(TypeError) as caught:
        setattr(hashlib_type, attribute, False)
    return str(caught.value), _tp_name(hashlib_type)


@since_310
@pytest.mark.parametrize("cls", CLASSES, ids=_tp_name)
def test_classes_refuse_attribute_setting_with_hashlib_s_message(cls):
    message, hashlib_name = _hashlib_message("value")
    assert hashlib_name in message
    with pytest.raises(TypeError) as caught:
        cls.value = False
    assert str(caught.value) == message.replace(hashlib_name, _tp_name(cls))
    assert "value" not in vars(cls)
    # An existing attribute (a method, or the docstring) can be neither replaced nor deleted.
    name = next((name for name in vars(cls) if not name.startswith("__")), "__doc__")
    before = vars(cls)[name]
    with pytest.raises(TypeError, match="immutable type"):
        setattr(cls, name, None)
    with pytest.raises(TypeError, match="immutable type"):
        delattr(cls, name)
    assert vars(cls)[name] is before


@pytest.mark.skipif(sys.version_info >= (3, 10), reason="3.10 and later: see the test above")
def test_on_3_9_the_classes_stay_ordinary():
    cls = type(parhash.sha256())
    cls.value = False
    assert cls.value is False
    del cls.value
    assert not hasattr(cls, "value")


@pytest.mark.parametrize("name", ["md5", "sha256", "sha3_256", "shake_128", "blake2b", "blake2s"])
def test_instances_work_as_before(name):
    ours, theirs = getattr(parhash, name), getattr(hashlib, name)

    def digest(h):
        return h.digest(20) if name.startswith("shake") else h.digest()

    h, expected = ours(b"abc"), theirs(b"abc")
    c = h.copy()
    h.update(b"def")
    expected_c = expected.copy()
    expected.update(b"def")
    assert digest(h) == digest(expected)
    assert digest(c) == digest(expected_c)
    assert isinstance(h, type(c))
    with pytest.raises(AttributeError):
        h.value = 1
    # Hash objects refuse to pickle (and so copy.copy), as hashlib's do.
    for refused in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(TypeError, match="cannot pickle"):
            refused(h)
        with pytest.raises(TypeError, match="cannot pickle"):
            refused(expected)
    # Constructors pickle by name; classes cannot be instantiated where hashlib's cannot.
    assert pickle.loads(pickle.dumps(ours)) is ours


def test_blake3_and_parts_work_as_before():
    h = parhash.blake3(b"abc")
    c = h.copy()
    assert h.update(b"def") is h
    assert c.update(b"def").digest() == h.digest() == parhash.blake3(b"abcdef").digest()
    with pytest.raises(TypeError, match="cannot pickle"):
        pickle.dumps(h)
    plan = parhash.PartPlan("parsha256", 100_000, 2)
    again = pickle.loads(pickle.dumps(plan))
    assert (again.parts, again.ranges(0)) == (plan.parts, plan.ranges(0))
    with pytest.raises(TypeError, match="cannot create 'parhash.Hash' instances"):
        type(parhash.sha256())()
