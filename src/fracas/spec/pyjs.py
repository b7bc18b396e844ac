"""A small, strict Python → JavaScript translator for the row rulesets' strike compilers.

A row ruleset marks the functions the Roll20 resolver runs with a module-level tuple
`CLIENT_STRIKE = (check_attacker, check_target, compile_strike, ...)`; `roll20_strikes`
translates them (their source, read with `ast`) into vtt_scripts/roll20/src/strikes.js, so
the Python is the single source of those rules. Only a restricted subset translates:
assignments (names, tuple unpacking, subscripts), if/elif/else, `for` over a literal tuple,
return, raise of a whitelisted error, comparisons (chained ones over plain operands),
`is None`, conditional expressions, and/or/not, + - *, attribute and subscript access,
dict/list/tuple literals, f-strings and calls to the whitelisted helpers in `CALLS` or to
another marked function. Anything else is a `TranslateError` naming file:line and the
construct, so an edit of the Python cannot silently produce wrong JavaScript.

Module-level constants the functions read (other than the facts `F` and layout `L`
modules) are written into the module by value, as JSON.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from pathlib import Path
from typing import Any, Callable

#: Python helper → JS function name (a call maps argument for argument; keyword arguments
#: become one object argument, as say(key, {…}) and rows.row({…}) take them).
CALLS = {
    "check_range": "checkRange", "choice": "choice", "say": "say",
    "rows.row": "rows.row", "rows.parse_damage": "rows.parseDamage", "rows.parse_die": "rows.parseDie",
}
#: Errors a marked function may raise (`raise X(...)` → `throw new X(...)`).
ERRORS = ("RulesError", "SchemaError", "LimitError")
_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
_CMP = {ast.Eq: "===", ast.NotEq: "!==", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


#: Names a local may not take: JS words and what the generated module itself binds.
RESERVED = frozenset("""break case catch class const continue debugger default delete do else enum export extends
false finally for function if import in instanceof let new null return super switch this throw true try typeof var
void while with yield await arguments eval undefined Math F L rows say choice checkRange RulesError SchemaError
LimitError STRIKES""".split())


class TranslateError(ValueError):
    """A construct outside the subset, named with its file:line."""


def camel(name: str) -> str:
    head, *rest = name.lstrip("_").split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


class _Function:
    def __init__(self, where: str, module: Any, marked: set[str], consts: dict[str, Any]) -> None:
        self.where = where
        self.module = module
        self.marked = marked
        self.consts = consts
        self.locals: set[str] = set()

    def fail(self, node: ast.AST, what: str) -> TranslateError:
        return TranslateError(f"{self.where}:{getattr(node, 'lineno', '?')}: {what} is outside the "
                              "Roll20 translator's subset (src/fracas/spec/pyjs.py)")

    # -- statements --------------------------------------------------------------------
    def block(self, body: list[ast.stmt], depth: int) -> list[str]:
        lines: list[str] = []
        for i, node in enumerate(body):
            if i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                    and isinstance(node.value.value, str):
                continue  # a docstring
            lines += self.stmt(node, depth)
        return lines

    def stmt(self, node: ast.stmt, depth: int) -> list[str]:
        pad = "  " * depth
        if isinstance(node, ast.Assign):
            if len(node.targets) > 1:  # a = b = value: a plain value, given to each name in turn
                if not isinstance(node.value, (ast.Constant, ast.Name)) \
                        or not all(isinstance(t, ast.Name) for t in node.targets):
                    raise self.fail(node, "a chained assignment of a computed value or to a non-name")
                value = self.expr(node.value)
                return [f"{pad}{self.store(t)} = {value};" for t in node.targets]
            target = node.targets[0]
            if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                # a, b = x, y: in turn, when no right-hand side reads what the left binds
                stored = {ast.unparse(t) for t in target.elts}
                if len(target.elts) != len(node.value.elts) or any(
                        isinstance(n, ast.expr) and ast.unparse(n) in stored
                        for v in node.value.elts for n in ast.walk(v)):
                    raise self.fail(node, "a tuple assignment whose right side reads its targets")
                return [f"{pad}{self.store(t)} = {self.expr(v)};" for t, v in zip(target.elts, node.value.elts)]
            if isinstance(target, ast.Tuple):
                return [f"{pad}[{', '.join(self.store(t) for t in target.elts)}] = {self.expr(node.value)};"]
            return [f"{pad}{self.store(target)} = {self.expr(node.value)};"]
        if isinstance(node, ast.AugAssign) and type(node.op) in _OPS:
            return [f"{pad}{self.store(node.target)} {_OPS[type(node.op)]}= {self.expr(node.value)};"]
        if isinstance(node, ast.Return):
            return [f"{pad}return{'' if node.value is None else ' ' + self.expr(node.value)};"]
        if isinstance(node, ast.If):
            lines = [f"{pad}if ({self.expr(node.test)}) {{", *self.block(node.body, depth + 1)]
            orelse = node.orelse
            while len(orelse) == 1 and isinstance(orelse[0], ast.If):
                lines += [f"{pad}}} else if ({self.expr(orelse[0].test)}) {{", *self.block(orelse[0].body, depth + 1)]
                orelse = orelse[0].orelse
            if orelse:
                lines += [f"{pad}}} else {{", *self.block(orelse, depth + 1)]
            return lines + [f"{pad}}}"]
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) \
                and isinstance(node.exc.func, ast.Name) and node.exc.func.id in ERRORS and node.cause is None:
            return [f"{pad}throw new {node.exc.func.id}({self.args(node.exc)});"]
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and isinstance(node.iter, ast.Tuple) \
                and not node.orelse:
            name = camel(node.target.id)
            if name in self.locals:
                raise self.fail(node, f"a loop over the bound name {node.target.id!r}")
            self.locals.add(name)
            lines = [f"{pad}for (const {name} of {self.expr(node.iter)}) {{", *self.block(node.body, depth + 1)]
            self.locals.discard(name)
            return lines + [f"{pad}}}"]
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            return [f"{pad}{self.expr(node.value)};"]
        if isinstance(node, ast.Assert):
            return []  # a note for the type checker: what the checks before it guarantee
        raise self.fail(node, f"the statement {type(node).__name__}")

    def store(self, target: ast.expr) -> str:
        if isinstance(target, ast.Name) and camel(target.id) in self.locals:
            return camel(target.id)
        if isinstance(target, ast.Subscript) and not isinstance(target.slice, ast.Slice):
            return self.expr(target)
        raise self.fail(target, f"an assignment to {type(target).__name__}")

    # -- expressions -------------------------------------------------------------------
    def args(self, call: ast.Call) -> str:
        parts = []
        for arg in call.args:
            if isinstance(arg, ast.Starred):
                parts.append("..." + self.expr(arg.value))
            else:
                parts.append(self.expr(arg))
        if call.keywords:
            if any(k.arg is None for k in call.keywords):
                raise self.fail(call, "a **mapping argument")
            parts.append("{ " + ", ".join(f"{k.arg}: {self.expr(k.value)}" for k in call.keywords) + " }")
        return ", ".join(parts)

    def dotted(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            head = self.dotted(node.value)
            return None if head is None else f"{head}.{node.attr}"
        return None

    def call(self, node: ast.Call) -> str:
        name = self.dotted(node.func)
        if name == "getattr" and len(node.args) == 2 and not node.keywords:
            return f"{self.expr(node.args[0])}[{self.expr(node.args[1])}]"
        if name == "rows.Meta" and not node.keywords and len(node.args) == 4:
            keys = ("target", "path", "facts", "faces")
            return "{ " + ", ".join(f"{k}: {self.expr(a)}" for k, a in zip(keys, node.args)) + " }"
        if name in CALLS:
            return f"{CALLS[name]}({self.args(node)})"
        if name in self.marked:
            if node.keywords:
                raise self.fail(node, f"keyword arguments to {name}")
            return f"{camel(name)}({self.args(node)})"
        raise self.fail(node, f"a call of {name or type(node.func).__name__} (not a whitelisted helper)")

    def operand(self, node: ast.expr) -> str:
        """An operand a chained comparison may read twice: no calls."""
        if isinstance(node, (ast.Name, ast.Attribute, ast.Constant)):
            return self.expr(node)
        raise self.fail(node, "a chained comparison over a computed operand")

    def compare(self, node: ast.Compare) -> str:
        parts = []
        left = node.left
        chained = len(node.ops) > 1
        for op, right in zip(node.ops, node.comparators):
            lhs = self.operand(left) if chained else self.expr(left)
            rhs = self.operand(right) if chained else self.expr(right)
            if isinstance(op, (ast.Is, ast.IsNot)):
                if not (isinstance(right, ast.Constant) and right.value is None):
                    raise self.fail(node, "`is` against anything but None")
                parts.append(f"{lhs} {'===' if isinstance(op, ast.Is) else '!=='} null")
            elif isinstance(op, (ast.In, ast.NotIn)) and (
                    isinstance(right, (ast.Tuple, ast.List))
                    or isinstance(right, ast.Name) and isinstance(self.consts.get(right.id), (tuple, list))):
                parts.append(f"{'!' if isinstance(op, ast.NotIn) else ''}{rhs}.includes({lhs})")
            elif type(op) in _CMP:
                parts.append(f"{lhs} {_CMP[type(op)]} {rhs}")
            else:
                raise self.fail(node, f"the comparison {type(op).__name__}")
            left = right
        return parts[0] if len(parts) == 1 else "(" + " && ".join(parts) + ")"

    def expr(self, node: ast.expr) -> str:
        if isinstance(node, ast.Constant):
            if node.value is None:
                return "null"
            if isinstance(node.value, bool):
                return "true" if node.value else "false"
            if isinstance(node.value, (int, str)):
                return json.dumps(node.value) if isinstance(node.value, str) else str(node.value)
            raise self.fail(node, f"the constant {node.value!r}")
        if isinstance(node, ast.Name):
            name = camel(node.id)
            if name in self.locals:
                return name
            if node.id in self.consts:
                return node.id
            raise self.fail(node, f"the name {node.id!r} (neither local nor a module constant)")
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in ("F", "L"):
                return f"{node.value.id}.{node.attr}"
            if isinstance(node.value, ast.Name) and node.value.id == "rows" and node.attr.isupper():
                return f"rows.{node.attr}"  # a constant of the shared rows module (rows.js exports it)
            return f"{self.expr(node.value)}.{node.attr}"
        if isinstance(node, ast.Subscript):
            if isinstance(node.slice, ast.Slice):
                raise self.fail(node, "a slice")
            return f"{self.expr(node.value)}[{self.expr(node.slice)}]"
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.Compare):
            return self.compare(node)
        if isinstance(node, ast.BoolOp):
            op = " && " if isinstance(node.op, ast.And) else " || "
            return "(" + op.join(self.expr(v) for v in node.values) + ")"
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return f"!({self.expr(node.operand)})"
            if isinstance(node.op, ast.USub):
                return f"-{self.expr(node.operand)}"
            raise self.fail(node, f"the operator {type(node.op).__name__}")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv):
            return f"Math.floor({self.expr(node.left)} / {self.expr(node.right)})"
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            return f"({self.expr(node.left)} {_OPS[type(node.op)]} {self.expr(node.right)})"
        if isinstance(node, ast.IfExp):
            return f"({self.expr(node.test)} ? {self.expr(node.body)} : {self.expr(node.orelse)})"
        if isinstance(node, (ast.Tuple, ast.List)):
            return "[" + ", ".join(self.expr(e) for e in node.elts) + "]"
        if isinstance(node, ast.Dict):
            items = []
            for key, value in zip(node.keys, node.values):
                if not (isinstance(key, ast.Constant) and isinstance(key.value, str)
                        and re.fullmatch(r"[A-Za-z_]\w*", key.value)):
                    raise self.fail(node, "a dict key that is no plain string")
                items.append(f"{key.value}: {self.expr(value)}")
            return "{ " + ", ".join(items) + " }"
        if isinstance(node, ast.JoinedStr):
            out = []
            for part in node.values:
                if isinstance(part, ast.Constant):
                    out.append(str(part.value).replace("\\", "\\\\").replace("`", "\\`").replace("${", "\\${"))
                elif isinstance(part, ast.FormattedValue) and part.conversion == -1 and part.format_spec is None:
                    out.append("${" + self.expr(part.value) + "}")
                else:
                    raise self.fail(node, "an f-string conversion or format spec")
            return "`" + "".join(out) + "`"
        if isinstance(node, ast.BinOp):
            raise self.fail(node, f"the operator {type(node.op).__name__}")
        raise self.fail(node, f"the expression {type(node).__name__}")


def translate(module: Any, functions: tuple[Callable[..., Any], ...]) -> tuple[list[str], list[str]]:
    """The JS of `functions` (all defined in `module`) and the module constants they read, as
    (constant lines, function lines)."""
    source_file = inspect.getsourcefile(module) or "?"
    tree = ast.parse(inspect.getsource(module), filename=source_file)
    # Named as in a checkout (src/fracas/...) wherever fracas is installed, so the generated
    # file is the same from a wheel, an sdist or the tree.
    package = Path(source_file).name == "__init__.py"
    where = "src/" + module.__name__.replace(".", "/") + ("/__init__.py" if package else ".py")
    marked = {f.__name__ for f in functions}
    defs = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    used: set[str] = set()
    for name in marked:
        if name not in defs:
            raise TranslateError(f"{where}: {name} is not a module-level function of {module.__name__}")
        used |= {n.id for n in ast.walk(defs[name]) if isinstance(n, ast.Name)}
    consts = {n: getattr(module, n) for n in sorted(used)
              if n not in marked and n not in ("F", "L") and hasattr(module, n)
              and isinstance(getattr(module, n), (int, str, tuple, list))
              and not isinstance(getattr(module, n), bool)}
    const_lines = [f"const {n} = {json.dumps(v)};" for n, v in consts.items()]
    lines: list[str] = []
    for function in functions:
        node = defs[function.__name__]
        fn = _Function(where, module, marked, consts)
        args = node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or args.posonlyargs:
            raise fn.fail(node, f"{node.name}'s signature (plain positional parameters only)")
        if node.decorator_list:
            raise fn.fail(node, f"a decorator on {node.name}")
        params = [camel(a.arg) for a in args.args]
        loops = {camel(n.target.id) for n in ast.walk(node) if isinstance(n, ast.For) and isinstance(n.target, ast.Name)}
        bound = sorted({camel(n.id) for n in ast.walk(node) if isinstance(n, ast.Name)
                        and isinstance(n.ctx, ast.Store)} - set(params) - loops)
        for name in [*params, *bound, *loops]:
            if name in RESERVED or name in consts or name in marked or camel(name) in {camel(m) for m in marked}:
                raise fn.fail(node, f"the local name {name!r} in {node.name} (a JS word or a module name)")
        fn.locals = set(params) | set(bound)
        lines += [f"// {where}:{node.lineno} {node.name}", f"function {camel(node.name)}({', '.join(params)}) {{",
                  *([f"  let {', '.join(bound)};"] if bound else []), *fn.block(node.body, 1), "}", ""]
    return const_lines, lines
