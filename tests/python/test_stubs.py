"""Docstrings, text signatures and type stubs against the module (Note [Docs table],
python/docs.c): every public name has a row in python/docs.def, the stubs gen_stubs.py writes
from the rows name exactly the module's names, and their signatures are the ones the module
reports (inspect.signature, from __text_signature__)."""
import ast
import importlib.util
import inspect
import os
import pydoc
import re
import types

import pytest

import ctensor

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS_DEF = os.path.join(ROOT, 'python', 'docs.def')
_spec = importlib.util.spec_from_file_location('gen_stubs', os.path.join(ROOT, 'python', 'gen_stubs.py'))
gen_stubs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_stubs)

ROWS = gen_stubs.parse_rows(DOCS_DEF)
BY_KEY = {(r['owner'], r['name']): r for r in ROWS}
FUNC_ROWS = ('CTP_FUNC', 'CTP_FUNCX', 'CTP_STATIC', 'CTP_SLOT')
# what every class has from CPython, and the module's own attributes
NOT_PUBLIC = {'__new__', '__init__', '__doc__', '__module__', '__dict__', '__weakref__', '__hash__',
              '__slots__', '__name__', '__package__', '__loader__', '__spec__', '__file__',
              '__path__', '__qualname__', '__text_signature__'}
HAVE_DIST = hasattr(ctensor, 'env')
# Tensor methods that only the CUDA backend's ctensor.cuda (cuda.c, not cuda_none.c) adds
CUDA_TENSOR_METHODS = {('Tensor', 'pin_memory')}


def inherited(cls, name):
    """Whether a ctensor base class of cls has `name`: the subclass's stub inherits it."""
    return any(name in base.__dict__ for base in cls.__mro__[1:]
               if base.__module__.startswith('ctensor'))


def public_names():
    """{(owner, name): object} of the module, its submodules and classes, as docs.def names
    them: owner "" is the module, a class's objects are its __dict__'s (descriptors)."""
    found = {}
    seen_types = set()

    def visit(owner, obj):
        is_class = isinstance(obj, type)
        for name, value in (vars(obj) if not is_class else obj.__dict__).items():
            if name in NOT_PUBLIC or (name.startswith('_') and not name.startswith('__')):
                continue
            if is_class and (owner, name) not in BY_KEY and inherited(obj, name):
                continue  # GlobalTensor's form (or refusal) of a Tensor method: Tensor's row
            if not is_class and name.startswith('__') and name != '__version__':
                continue
            found[(owner, name)] = value
            qual = name if owner == '' else owner + '.' + name
            if isinstance(value, types.ModuleType) and value.__name__ == 'ctensor.' + qual:
                visit(qual, value)
            elif isinstance(value, type) and value.__module__.startswith('ctensor') \
                    and value not in seen_types:
                seen_types.add(value)
                visit(qual, value)

    visit('', ctensor)
    return found


NAMES = public_names()


def optional_part(owner, name):
    """Rows of a part this build may lack: the CUDA backend (cuda_none.c has fewer names) and,
    without libctensor_dist, global tensors."""
    if owner.startswith('cuda') or (owner, name) in CUDA_TENSOR_METHODS:
        return True
    return not HAVE_DIST


def suggested_row(owner, name, obj):
    doc = (getattr(obj, '__doc__', None) or '').strip().split('\n')[0]
    return 'CTP_FUNC("%s", "%s", "(...)", "Tensor", "%s")' % (owner, name, doc.replace('"', "'"))


def test_every_public_name_has_a_row():
    missing = sorted(k for k in NAMES if k not in BY_KEY)
    assert not missing, 'public names without a row in python/docs.def:\n' + '\n'.join(
        suggested_row(o, n, NAMES[(o, n)]) for o, n in missing)


def test_every_row_names_a_public_name():
    stale = sorted(k for k in BY_KEY if k not in NAMES and not optional_part(*k))
    assert not stale, 'rows of python/docs.def the module lacks: %s' % stale


def test_rows_are_unique_and_parse():
    seen = set()
    for row in ROWS:
        key = (row['owner'], row['name'])
        assert key not in seen, 'two rows for %s (line %d)' % (key, row['line'])
        seen.add(key)
        if row['macro'] in FUNC_ROWS or row['macro'] == 'CTP_CLASS':
            gen_stubs.params_of(row['params'])  # raises on a bad parameter list


def runtime_params(obj):
    try:
        sig = inspect.signature(obj)
    except (ValueError, TypeError):
        return None
    return [(p.name, p.kind, p.default is not inspect.Parameter.empty)
            for p in sig.parameters.values()]


def stub_params(args):
    out = [(a.arg, inspect.Parameter.POSITIONAL_ONLY, False) for a in args.posonlyargs]
    out += [(a.arg, inspect.Parameter.POSITIONAL_OR_KEYWORD, False) for a in args.args]
    n_defaults = len(args.defaults)
    if n_defaults:
        out[-n_defaults:] = [(n, k, True) for n, k, _ in out[-n_defaults:]]
    if args.vararg is not None:
        out.append((args.vararg.arg, inspect.Parameter.VAR_POSITIONAL, False))
    out += [(a.arg, inspect.Parameter.KEYWORD_ONLY, d is not None)
            for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    if args.kwarg is not None:
        out.append((args.kwarg.arg, inspect.Parameter.VAR_KEYWORD, False))
    return out


@pytest.fixture(scope='module')
def stubs(tmp_path_factory):
    """{(owner, name): [ast.FunctionDef or AnnAssign, ...]} of the stubs gen_stubs.py writes."""
    out = tmp_path_factory.mktemp('stubs')
    gen_stubs.main(['gen_stubs.py', DOCS_DEF, str(out)])
    assert (out / 'py.typed').exists()
    found = {}
    for path in sorted(out.glob('*.pyi')):
        module = '' if path.stem == '__init__' else path.stem
        tree = ast.parse(path.read_text(), str(path))

        def collect(owner, body):
            for node in body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if node.name != '__init__' or owner == module:
                        found.setdefault((owner, node.name), []).append(node)
                elif isinstance(node, ast.AnnAssign):
                    found.setdefault((owner, node.target.id), []).append(node)
                elif isinstance(node, ast.ClassDef):
                    found.setdefault((owner, node.name), []).append(node)
                    collect(node.name if owner == '' else owner + '.' + node.name, node.body)
                elif isinstance(node, ast.ImportFrom) and node.module is None:
                    for alias in node.names:  # from . import cuda as cuda
                        found.setdefault((owner, alias.asname or alias.name), []).append(node)
        collect(module, tree.body)
    return found


def test_stubs_name_the_module_names(stubs):
    missing = sorted(k for k in NAMES if k not in stubs)
    assert not missing, 'public names the stubs lack: %s' % missing
    extra = sorted(k for k in stubs if k not in NAMES and not optional_part(*k))
    assert not extra, 'stub names the module lacks: %s' % extra


def test_stub_signatures_are_the_module_signatures(stubs):
    checked, wrong = 0, []
    for key, obj in NAMES.items():
        row = BY_KEY.get(key)
        if row is None or row['macro'] not in FUNC_ROWS or row['macro'] == 'CTP_FUNCX':
            continue
        target = obj.__func__ if isinstance(obj, staticmethod) else obj
        if getattr(target, '__text_signature__', None) is None:
            continue
        got = runtime_params(target)
        if got is None:
            wrong.append('%s: inspect cannot read %r' % (key, target.__text_signature__))
            continue
        defs = [d for d in stubs[key] if isinstance(d, ast.FunctionDef)]
        assert len(defs) == 1, key
        want = stub_params(defs[0].args)
        if row['owner'] and row['macro'] != 'CTP_STATIC':
            # self: positional-only in CPython's slot signatures, plain in the stubs
            got, want = got[1:], want[1:]
        if got != want:
            wrong.append('%s: module %s, stub %s' % (key, got, want))
        checked += 1
    assert not wrong, '\n'.join(wrong)
    assert checked > 500


def test_every_function_and_method_has_a_signature_and_a_meaning():
    bad = []
    for (owner, name), obj in NAMES.items():
        row = BY_KEY.get((owner, name))
        if row is None or row['macro'] not in ('CTP_FUNC', 'CTP_FUNCX', 'CTP_STATIC'):
            continue
        if not row['meaning'].strip():
            bad.append('%s.%s: no meaning in docs.def' % (owner, name))
        target = obj.__func__ if isinstance(obj, staticmethod) else obj
        if getattr(target, '__name__', name) != name:
            continue  # an alias of another function keeps that function's doc
        doc = target.__doc__ or ''
        if row['macro'] == 'CTP_FUNCX':
            ok = doc.startswith(name + '(') and doc.endswith(row['meaning'])
        else:
            ok = target.__text_signature__ is not None and doc == row['meaning']
        if not ok:
            bad.append('%s.%s: doc %r, text signature %r' % (
                owner, name, doc[:60], getattr(target, '__text_signature__', None)))
    assert not bad, '\n'.join(bad)


def test_help_shows_signature_and_meaning():
    text = pydoc.render_doc(ctensor.add, renderer=pydoc.plaintext)
    assert 'add(input, other, *, alpha=1, out=None)' in text
    assert BY_KEY[('', 'add')]['meaning'] in text
    text = pydoc.render_doc(ctensor.Tensor.add, renderer=pydoc.plaintext)
    assert 'add(self, /, other, *, alpha=1)' in text
    assert str(inspect.signature(ctensor.sum)).startswith('(input, dim=None')
    text = pydoc.render_doc(ctensor.max, renderer=pydoc.plaintext)
    assert 'max(input, dim, keepdim=False' in text
    assert ctensor.Tensor.shape.__doc__ == BY_KEY[('Tensor', 'shape')]['meaning']


def test_version_is_the_headers():
    with open(os.path.join(ROOT, 'include', 'ctensor', 'version.h')) as f:
        text = f.read()
    parts = [re.search(r'#define CT_VERSION_%s (\d+)' % p, text).group(1)
             for p in ('MAJOR', 'MINOR', 'PATCH')]
    assert ctensor.__version__ == '.'.join(parts)
