#!/usr/bin/env python3
"""Write the type stubs of the module `ctensor` from python/docs.def (Note [Docs table]).

    gen_stubs.py DOCS_DEF OUT_DIR

writes OUT_DIR/__init__.pyi, one OUT_DIR/<submodule>.pyi per CTP_MODULE row and
OUT_DIR/py.typed (last: the build's stamp). Parameters keep their names and kinds; every
default becomes `...`. tests/python/test_stubs.py imports this file for `parse_rows`.
"""
import ast
import builtins
import keyword
import os
import re
import sys

ROW = re.compile(r'^(CTP_[A-Z]+)\((.*)\)\s*$')
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
FIELDS = {
    'CTP_FUNC': ('owner', 'name', 'params', 'ret', 'meaning'),
    'CTP_FUNCX': ('owner', 'name', 'params', 'ret', 'meaning'),
    'CTP_STATIC': ('owner', 'name', 'params', 'ret', 'meaning'),
    'CTP_SLOT': ('owner', 'name', 'params', 'ret', 'meaning'),
    'CTP_PROP': ('owner', 'name', 'type', 'meaning'),
    'CTP_DATA': ('owner', 'name', 'type', 'meaning'),
    'CTP_CLASS': ('owner', 'name', 'base', 'params', 'meaning'),
    'CTP_MODULE': ('owner', 'name', 'meaning'),
}
TYPING = {'Any', 'Iterator', 'Optional', 'Union', 'Callable', 'Sequence'}
BUILTIN_TYPES = {n for n in dir(builtins) if isinstance(getattr(builtins, n), type)} | {'None'}


def unescape(s):
    return s.encode('utf-8').decode('unicode_escape').encode('latin-1').decode('utf-8')


def parse_rows(path):
    """The rows of docs.def as dicts with 'macro', 'line' and the macro's fields."""
    rows = []
    with open(path, encoding='utf-8') as f:
        for lineno, line in enumerate(f, 1):
            m = ROW.match(line.strip())
            if not m:
                continue
            macro = m.group(1)
            if macro not in FIELDS:
                raise SystemExit('%s:%d: unknown row %s' % (path, lineno, macro))
            values = [unescape(v) for v in STRING.findall(m.group(2))]
            if len(values) != len(FIELDS[macro]):
                raise SystemExit('%s:%d: %s takes %d strings' % (path, lineno, macro,
                                                                 len(FIELDS[macro])))
            row = dict(zip(FIELDS[macro], values), macro=macro, line=lineno)
            rows.append(row)
    return rows


def params_of(text):
    """'(a, b=1, *, c=None)' -> ast.arguments; each alternative of 'x | y' separately."""
    return [ast.parse('def f%s: pass' % alt.strip()).body[0].args for alt in text.split(' | ')]


def stub_params(args, first):
    """ast.arguments as stub text: defaults become `...`; `first` (self, cls) prepended."""
    ellipsis = ast.Constant(value=...)
    args.defaults = [ellipsis for _ in args.defaults]
    args.kw_defaults = [None if d is None else ellipsis for d in args.kw_defaults]
    if first and args.posonlyargs:
        args.posonlyargs = [ast.arg(arg=first)] + args.posonlyargs
    elif first:
        args.args = [ast.arg(arg=first)] + args.args
    return ast.unparse(args)


class Namer:
    """Annotations: builtin types as builtins.X (the module's own int, float, bool are
    dtypes), names of this stub file as they are, the root module's classes through
    `ctensor`, anything else Any."""

    def __init__(self, local, root, in_root):
        self.local, self.root, self.in_root = local, root, in_root

    def __call__(self, text):
        text = (text or 'Any').strip()
        try:
            tree = ast.parse(text, mode='eval').body
        except SyntaxError:
            return 'Any'
        if not self.ok(tree):
            return 'Any'

        def sub(m):
            name = m.group(0)
            if name.startswith('ctensor.'):
                return name[len('ctensor.'):] if self.in_root else '_ct.' + name[len('ctensor.'):]
            if '.' in name:
                return name if name.split('.')[0] in ('builtins', 'typing') else 'Any'
            if name in self.local or name in TYPING:
                return name
            if name in BUILTIN_TYPES:
                return name if name == 'None' else 'builtins.' + name
            if name in self.root:
                return name if self.in_root else '_ct.' + name
            return 'Any'
        return re.sub(r'[A-Za-z_][A-Za-z0-9_.]*', sub, text)

    def ok(self, node):
        """Only names, dotted names, subscripts and `|` make a type here."""
        if isinstance(node, ast.Name) or (isinstance(node, ast.Constant) and node.value is None):
            return True
        if isinstance(node, ast.Attribute):
            return self.ok(node.value)
        if isinstance(node, ast.Subscript):
            inner = node.slice.value if hasattr(ast, 'Index') and isinstance(node.slice, ast.Index) else node.slice
            parts = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            return self.ok(node.value) and all(
                self.ok(p) or (isinstance(p, ast.Constant) and p.value is ...) for p in parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.ok(node.left) and self.ok(node.right)
        return False


def doc_literal(text, indent):
    text = text.replace('\\', '\\\\').replace('"""', '\\"\\"\\"')
    return '%s"""%s"""' % (indent, text) if text else ''


def write_defs(out, rows, namer, indent, in_class):
    for row in rows:
        macro, name = row['macro'], row['name']
        if macro in ('CTP_FUNC', 'CTP_FUNCX', 'CTP_STATIC', 'CTP_SLOT'):
            alts = params_of(row['params'])
            first = 'self' if in_class and macro != 'CTP_STATIC' else None
            ret = namer(row['ret'])
            for args in alts:
                if len(alts) > 1:
                    out.append(indent + '@overload')
                if macro == 'CTP_STATIC':
                    out.append(indent + '@staticmethod')
                # torch's own stubs do the same: == gives a tensor, a**=b takes no modulus
                ignore = {'__eq__': '  # type: ignore[override]', '__ne__': '  # type: ignore[override]',
                          '__ipow__': '  # type: ignore[misc]'}.get(name, '') if ret != 'builtins.bool' else ''
                out.append('%sdef %s(%s) -> %s:%s' % (indent, name, stub_params(args, first), ret, ignore))
                out.append(doc_literal(row['meaning'], indent + '    ') or indent + '    ...')
        elif macro == 'CTP_PROP':
            out.append(indent + '@property')
            out.append('%sdef %s(self) -> %s:' % (indent, name, namer(row['type'])))
            out.append(doc_literal(row['meaning'], indent + '    ') or indent + '    ...')
        elif macro == 'CTP_DATA':
            out.append('%s%s: %s' % (indent, name, namer(row['type'])))
            if row['meaning']:
                out.append(doc_literal(row['meaning'], indent))


def write_file(path, owner, rows, modules, root_classes):
    local_classes = {r['name'] for r in rows if r['macro'] == 'CTP_CLASS' and r['owner'] == owner}
    namer = Namer(local_classes, root_classes, owner == '')
    out = ['# Generated from python/docs.def by python/gen_stubs.py: edit the rows, not this file.',
           'import builtins', 'from typing import Any, Iterator, overload', '']
    if owner == '':
        for m in modules:
            out.append('from . import %s as %s' % (m, m))
    else:
        out.append('import ctensor as _ct')
    out.append('')
    write_defs(out, [r for r in rows if r['owner'] == owner and r['macro'] != 'CTP_CLASS'],
               namer, '', False)
    for cls in [r for r in rows if r['macro'] == 'CTP_CLASS' and r['owner'] == owner]:
        qual = cls['name'] if owner == '' else owner + '.' + cls['name']
        base = namer(cls['base']) if cls['base'] else ''
        out.append('')
        out.append('class %s%s:' % (cls['name'], '(%s)' % base if base else ''))
        if cls['meaning']:
            out.append(doc_literal(cls['meaning'], '    '))
        init = params_of(cls['params'])[0]
        out.append('    def __init__(%s) -> None: ...' % stub_params(init, 'self'))
        write_defs(out, [r for r in rows if r['owner'] == qual], namer, '    ', True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(out) + '\n')


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    rows = parse_rows(argv[1])
    os.makedirs(argv[2], exist_ok=True)
    modules = [r['name'] for r in rows if r['macro'] == 'CTP_MODULE' and r['owner'] == '']
    root_classes = {r['name'] for r in rows if r['macro'] == 'CTP_CLASS' and r['owner'] == ''}
    write_file(os.path.join(argv[2], '__init__.pyi'), '', rows, modules, root_classes)
    for m in modules:
        write_file(os.path.join(argv[2], m + '.pyi'), m, rows, [], root_classes)
    with open(os.path.join(argv[2], 'py.typed'), 'w') as f:
        f.write('')


if __name__ == '__main__':
    main(sys.argv)
