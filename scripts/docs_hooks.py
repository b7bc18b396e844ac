"""mkdocs hooks for the fracas documentation site (`mkdocs build --strict`; mkdocs.yml names
this file). Nothing here is copied by hand; at every build:

- the pages that live beside their code (bridge/README.md, vtt_scripts/*/README.md,
  benchmarks/README.md, examples/README.md, CHANGELOG.md) join the site, and every
  relative link of every page is pointed at the page that now holds its target, or at the
  repository for a file the site does not carry;
- the request and result reference of each registered ruleset is generated from the
  msgspec types that decode its requests (`Ruleset.request_types`, through the same JSON
  Schema code as bridge/schema.json) and from an example request resolved by the engine;
- the Python API reference lists `fracas.__all__` and renders each name's docstrings with
  mkdocstrings (static analysis by griffe: what a docstring says is what the page says);
- the Rules section lists every registered ruleset's rules page from its manifest (a page
  kept in the ruleset's folder joins the site as `rules/<name>.md`), and the rules index's
  table is the manifests' (`fracas.rulesets.docs_index`), so an installed ruleset that
  fracas does not ship is in the site too.

- each rule of a rules page gets an anchor of its ID (`ER-3` → `#er-3`), so a rule cited
  by an error message or another page links to it (`rules/enchanted-realms.md#er-3`);
- the CLI reference gains each ruleset's `fracas attack` / `fracas odds` flags (from the
  rulesets' own click options, which `--ruleset NAME --help` lists);
- a page kept beside its code says where its files are in the repository, since the site
  carries only the page;
- code in a Markdown table cell keeps its `|` (written `\|` there, which GitHub shows as
  `|` but Python-Markdown keeps inside code: a Roll20 command pasted from the site works).

The approach follows mkdocs' own hook mechanism (`hooks:` in mkdocs.yml, the `on_config`,
`on_files` and `on_page_markdown` events of mkdocs 1.6, and `File.generated`), as the
mkdocs-gen-files plugin does for generated pages, without adding that plugin.
"""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]

#: Pages kept beside their code, by repository path -> site path.
BESIDE_THE_CODE = {
    "bridge/README.md": "bridge.md",
    "vtt_scripts/roll20/README.md": "roll20.md",
    "vtt_scripts/foundry/README.md": "foundry.md",
    "benchmarks/README.md": "benchmarks.md",
    "examples/README.md": "examples.md",
    "CHANGELOG.md": "changelog.md",
}
#: Where the generated sections go in mkdocs.yml's nav (the entries are placeholders).
API_INDEX = "api/index.md"
REFERENCE_INDEX = "reference/index.md"
RULES_INDEX = "rules/README.md"

#: A Markdown link or image (`![alt](path)`: a README's picture under docs/images is pointed at
#: the site's copy like any other file of the site).
_LINK = re.compile(r"(!?\[[^\]\n]*\]\()([^)\s]+)(\))")


# -- the site's pages ---------------------------------------------------------------------

def _site_pages(config: Any) -> dict[str, str]:
    """Repository path -> site path of every Markdown page of the site."""
    docs = Path(config["docs_dir"]).resolve()
    prefix = docs.relative_to(ROOT).as_posix()
    pages = {f"{prefix}/{path.relative_to(docs).as_posix()}": path.relative_to(docs).as_posix()
             for path in docs.rglob("*") if path.is_file()}
    pages.update(BESIDE_THE_CODE)
    return pages


def on_config(config: Any) -> Any:
    """Fill the nav's generated sections: one page per ruleset, the API's pages."""
    config["extra"]["fracas_pages"] = {}
    nav = config["nav"] or []
    reference = _reference_pages()
    api = _api_pages()
    config["extra"]["fracas_pages"].update(reference)
    config["extra"]["fracas_pages"].update(api)
    rules = _rules_pages()
    config["extra"]["fracas_pages"].update({path: meta for path, meta in rules.items() if "content" in meta})

    def expand(entries: list[Any]) -> list[Any]:
        out = []
        for entry in entries:
            if isinstance(entry, dict):
                (title, value), = entry.items()
                if value == REFERENCE_INDEX:
                    value = [REFERENCE_INDEX] + [{meta["title"]: path} for path, meta in reference.items()
                                                 if path != REFERENCE_INDEX]
                elif isinstance(value, list) and value and value[0] == RULES_INDEX:
                    value = ([RULES_INDEX] + [{meta["title"]: path} for path, meta in rules.items()]
                             + [{"Where each rule lives": "rules/INDEX.md"}])
                elif value == API_INDEX:
                    value = [API_INDEX] + [{meta["title"]: path} for path, meta in api.items() if path != API_INDEX]
                elif isinstance(value, list):
                    value = expand(value)
                out.append({title: value})
            else:
                out.append(entry)
        return out

    config["nav"] = expand(nav)
    return config


def on_files(files: Files, config: Any) -> Files:
    for source, target in BESIDE_THE_CODE.items():
        path = ROOT / source
        if path.exists():
            files.append(File.generated(config, target, content=path.read_text(encoding="utf-8")))
    for target, meta in config["extra"]["fracas_pages"].items():
        files.append(File.generated(config, target, content=meta["content"]))
    return files


def _rules_pages() -> dict[str, dict[str, Any]]:
    """Site path → title (and content, for a page kept in a ruleset's folder) of each
    registered ruleset's rules page, from its manifest."""
    from fracas import rulesets

    pages: dict[str, dict[str, Any]] = {}
    for manifest in rulesets.manifests():
        path = f"rules/{manifest.rules_page}"
        pages[path] = {"title": manifest.title}
        if not manifest.rules.startswith("docs/"):
            pages[path].update(content=manifest.rules_text())
    return pages


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Point each relative link at the site page that holds its target (or the repository);
    the rules index's table is the registered rulesets' (their manifests)."""
    if page.file.src_uri == RULES_INDEX:
        from fracas import rulesets
        from fracas.spec.generate import INDEX_BEGIN, INDEX_END

        head, begin, rest = markdown.partition(INDEX_BEGIN)
        _, end, tail = rest.partition(INDEX_END)
        if begin and end:
            markdown = f"{head}{begin}\n{rulesets.docs_index()}{end}{tail}"
    markdown = _outside_code_blocks(markdown, _pipes_in_table_code)
    if page.file.src_uri.startswith("rules/") and page.file.src_uri != RULES_INDEX:
        anchored: set[str] = set()
        markdown = _outside_code_blocks(markdown, lambda text: _rule_anchors(text, anchored))
    if page.file.src_uri == CLI_PAGE:
        markdown += _ruleset_flags()
    pages = _site_pages(config)
    by_site = {site: repo for repo, site in pages.items()}
    here_site = page.file.src_uri
    here_repo = by_site.get(here_site)
    if here_repo is None:  # a generated page: its links are written for the site already
        return markdown
    repo_url = (config.get("repo_url") or "").rstrip("/")
    if here_repo in BESIDE_THE_CODE:
        markdown = _where_it_lives(markdown, here_repo, repo_url)

    def fix(match: re.Match[str]) -> str:
        target = match.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith(("#", "/")):
            return match.group(0)
        path, _, anchor = target.partition("#")
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(here_repo), path))
        if resolved in pages:
            new = posixpath.relpath(pages[resolved], posixpath.dirname(here_site) or ".")
        elif (ROOT / resolved).exists() and not resolved.startswith(".."):
            kind = "tree" if (ROOT / resolved).is_dir() else "blob"
            new = f"{repo_url}/{kind}/main/{resolved}"
        else:
            return match.group(0)  # left for mkdocs to report (strict: an error)
        return f"{match.group(1)}{new}{'#' + anchor if anchor else ''}{match.group(3)}"

    return _outside_code_blocks(markdown, lambda text: _LINK.sub(fix, text))


#: The CLI reference's page (mkdocs-click renders the commands; `_ruleset_flags` adds the rest).
CLI_PAGE = "cli.md"

#: A rule's definition on a rules page: a list item that opens with its bold ID ("- **ER-3 …").
_RULE = re.compile(r"^(\s*[-*]\s+)(\*\*([A-Z]{2,}-\d+)\b)", re.M)
_TABLE_CODE = re.compile(r"`([^`\n]*\\\|[^`\n]*)`")


def _rule_anchors(text: str, seen: set[str]) -> str:
    """An anchor of each rule's ID before its definition, the first item that opens with it
    (an "In a fight" note on the same rule comes later): `ER-3` → `#er-3`. `seen`: the IDs
    anchored already, in the page's earlier parts."""

    def anchor(match: re.Match[str]) -> str:
        rule = match.group(3).lower()
        if rule in seen:
            return match.group(0)
        seen.add(rule)
        return f'{match.group(1)}<a id="{rule}"></a>{match.group(2)}'

    return _RULE.sub(anchor, text)


def _pipes_in_table_code(text: str) -> str:
    """`a\\|b` in a table row → <code>a&#124;b</code>: the cell still splits right, and the
    code shows (and copies as) `a|b`, as GitHub shows the Markdown."""
    def cell(match: re.Match[str]) -> str:
        return f"<code>{_literal(match.group(1).replace(chr(92) + '|', '|'))}</code>"

    return "\n".join(_TABLE_CODE.sub(cell, line) if line.lstrip().startswith("|") else line
                     for line in text.split("\n"))


def _rule_links(text: str, rules_dir: str) -> str:
    """Each rule ID of a registered ruleset (`WW-4`) as a link to its anchor on its rules page."""
    from fracas import rulesets

    pages = {m.id.upper(): m.rules_page for m in rulesets.manifests()}

    def link(match: re.Match[str]) -> str:
        page = pages.get(match.group(1))
        return f"[{match.group(0)}]({rules_dir}{page}#{match.group(0).lower()})" if page else match.group(0)

    return re.sub(r"\b([A-Z]{2,})-\d+\b", link, text)


def _literal(text: str) -> str:
    """Text for raw HTML that Markdown leaves alone: every sign as a character reference
    (Markdown still reads `[x]`, `*x*` or `\\` inside an HTML tag), letters and digits as they are."""
    return "".join(c if c.isalnum() or c == " " else f"&#{ord(c)};" for c in text)


def _where_it_lives(markdown: str, repo_path: str, repo_url: str) -> str:
    """A page kept beside its code names files of its folder; on the site, say where they are."""
    folder = posixpath.dirname(repo_path)
    where = (f"[`{folder}/`]({repo_url}/tree/main/{folder})" if folder else f"[the repository]({repo_url})")
    note = (f"*This page is [`{repo_path}`]({repo_url}/blob/main/{repo_path}) of the repository: the files it names"
            f" are in {where}.*")
    head, sep, rest = markdown.partition("\n")
    if head.startswith("# "):
        return f"{head}\n\n{note}\n{rest}"
    return f"{note}\n\n{markdown}"


def _ruleset_flags() -> str:
    """Each ruleset's attack flags (`fracas attack --ruleset NAME`, `fracas odds --ruleset
    NAME`), from the click options the ruleset gives (`Ruleset.cli_options`)."""
    import click

    from fracas import rulesets

    lines = ["", "## Each ruleset's attack flags", "",
             "`fracas attack` and `fracas odds` describe one attack with the flags of the ruleset that",
             "`--ruleset NAME` names (Enchanted Realms' when it is not given; `fracas attack --ruleset",
             "NAME --help` lists them). A request file or a kept profile (`--as`) names its own ruleset.", ""]
    ctx = click.Context(click.Command("attack"))
    for name in rulesets.names():
        ruleset = rulesets.get(name)
        options = ruleset.cli_options()
        title = ruleset.title or name
        lines += [f"### {title} {{#flags-{name}}}", ""]
        if not options:
            lines += [f"{title} has no flags: give a request file.", ""]
            continue
        lines += [f"`--ruleset {name}`" + (" (the default)" if name == rulesets.DEFAULT else ""), "",
                  "| flag | what it says |", "|---|---|"]
        for option in options:
            record = option.get_help_record(ctx)
            if record is None:
                continue
            flag, meaning = record
            meaning = _rule_links(" ".join(meaning.split()).replace("|", "\\|"), "rules/")
            lines.append(f"| <code>{_literal(flag)}</code> | {meaning} |")  # a choice's | kept in the cell
        lines.append("")
    return "\n".join(lines)


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    # mkdocs-click 0.9 prints click 8.2's "no default" sentinel (`Sentinel.UNSET`) in the
    # Default column of a flag that has none: show nothing there, as `--help` does.
    return html.replace("<td><code>Sentinel.UNSET</code></td>", "<td></td>")


def _outside_code_blocks(markdown: str, change: Any) -> str:
    parts = re.split(r"(^```.*?^```[ \t]*$)", markdown, flags=re.M | re.S)
    return "".join(part if part.startswith("```") else change(part) for part in parts)


# -- the request and result reference ----------------------------------------------------

#: How the shared kinds are reached beyond their own call, method and command (exact odds
#: read an attack request too; a bulk request goes through `fracas attack --bulk`).
_KIND_EXTRA = {
    "attack": ("`fracas.odds`", "`attack.odds`", "`fracas odds`"),
    "bulk": ((), (), "`fracas attack --bulk`"),
}


def _kind_use(name: str) -> str:
    """Where a kind of request is used: its `fracas` function, bridge method and command,
    read from its `Kind` (fracas.rulesets.base)."""
    from fracas import rulesets

    kind = rulesets.kinds()[name]
    calls, methods, commands = [f"`fracas.{kind.call}`"], [f"`{kind.method}`"], []
    if kind.command is not None:
        import importlib

        module, _, attr = kind.command.partition(":")
        commands.append(f"`fracas {getattr(importlib.import_module(module), attr).name}`")
    extra = _KIND_EXTRA.get(name)
    if extra:
        calls += [extra[0]] if extra[0] else []
        methods += [extra[1]] if extra[1] else []
        commands += [extra[2]]
    out = f"{', '.join(calls)}; the bridge's {' and '.join(methods)}"
    return out + (f"; {', '.join(commands)}" if commands else "")


def _kind_result(name: str) -> str:
    """The protocol's result definition of a kind (`Kind.result`, which may be a $ref)."""
    from fracas import rulesets

    return rulesets.kinds()[name].result or ""


def _protocol() -> dict[str, Any]:
    from fracas.spec.generate import load
    from fracas.spec.schema import protocol_schema

    defs: dict[str, Any] = protocol_schema(load())["$defs"]
    return defs


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


class _Types:
    """Renders JSON Schema types as Markdown, linking the page's own definitions."""

    def __init__(self, local: dict[str, str], shared: set[str]):
        self.local, self.shared = local, shared

    def name(self, schema: dict[str, Any]) -> str:
        if "$ref" in schema:
            ref = schema["$ref"].rsplit("/", 1)[-1]
            if ref in self.local:
                return f"[{self.local[ref]}](#{_slug(self.local[ref])})"
            self.shared.add(ref)
            return f"[{ref}](#{_slug(ref)})"
        if "const" in schema:
            return f"`{json.dumps(schema['const'])}`"
        if "enum" in schema:
            return " \\| ".join(f"`{json.dumps(value)}`" for value in schema["enum"])
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return " or ".join(self.name(part) for part in schema[key])
        kind = schema.get("type")
        if isinstance(kind, list):
            return " or ".join(self.name({**schema, "type": one}) for one in kind)
        if kind == "array":
            return f"array of {self.name(schema.get('items', {}))}" if schema.get("items") else "array"
        if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
            return f"object of {self.name(schema['additionalProperties'])}"
        text = {"integer": "integer", "number": "number", "string": "string", "boolean": "boolean",
                "null": "null", "object": "object"}.get(kind or "", "any")
        bounds = [f"{word} {schema[key]}" for key, word in (("minimum", "≥"), ("maximum", "≤"),
                                                            ("minLength", "length ≥"), ("maxLength", "length ≤"),
                                                            ("minItems", "items ≥"), ("maxItems", "items ≤"))
                  if key in schema]
        return text + (f" ({', '.join(bounds)})" if bounds else "")

    def table(self, schema: dict[str, Any]) -> list[str]:
        properties = schema.get("properties", {})
        if not properties:
            return []
        required = set(schema.get("required", []))
        lines = ["| field | type | required / default | meaning |", "|---|---|---|---|"]
        for field, spec in properties.items():
            need = "required" if field in required else (
                f"default `{json.dumps(spec['default'])}`" if "default" in spec else "optional")
            described = (spec.get("description") or "").replace("|", "\\|").replace("\n", " ")
            lines.append(f"| `{field}` | {self.name(spec)} | {need} | {described} |")
        return lines


def _example_requests() -> dict[str, dict[str, Any]]:
    """One attack request per ruleset from examples/ (the README's), by ruleset name."""
    from fracas import rulesets

    found: dict[str, dict[str, Any]] = {}
    for path in sorted((ROOT / "examples").glob("*.json")):
        try:
            request = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        if isinstance(request, dict) and {"attacker", "strikes", "targets"} <= set(request):
            name = request.get("ruleset", rulesets.DEFAULT)
            found.setdefault(name, {"path": f"examples/{path.name}", "request": request})
    return found


def _shape(value: Any, path: str, rows: list[tuple[str, str, str]]) -> None:
    kind = {bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
            dict: "object", type(None): "null"}.get(type(value), type(value).__name__)
    if path:
        example = json.dumps(value) if kind not in ("array", "object") else ""
        rows.append((path, kind, example if len(example) <= 40 else example[:37] + "…"))
    if isinstance(value, dict):
        for key, item in value.items():
            _shape(item, f"{path}.{key}" if path else key, rows)
    elif isinstance(value, list) and value:
        _shape(value[0], f"{path}[]", rows)


def _reference_pages() -> dict[str, dict[str, Any]]:
    import fracas
    from fracas import rulesets
    from fracas.spec.schema import ruleset_defs

    protocol = _protocol()
    examples = _example_requests()
    pages: dict[str, dict[str, Any]] = {}
    index = ["# Requests and results", "",
             "Every request names its `\"ruleset\"` (absent: `enchanted-realms`). Each page below is",
             "generated when the site is built, from the msgspec types that decode that ruleset's",
             "requests (the same types give the bridge's JSON Schema, `bridge/schema.json`) and from an",
             "example request resolved by the engine. An unknown field, a wrong type or a value out of",
             "range is refused with an error that names its path (`$.strikes[0].dice: …`).", "",
             "| ruleset | `\"ruleset\"` | requests | rules |", "|---|---|---|---|"]
    for name in rulesets.names():
        ruleset = rulesets.get(name)
        package = __import__(type(ruleset).__module__, fromlist=["SCHEMA_HINTS"])
        defs, kinds = ruleset_defs(ruleset, "", getattr(package, "SCHEMA_HINTS", {}),
                                   getattr(package, "SCHEMA_TYPES", []), default=name == rulesets.DEFAULT)
        local = {def_name: def_name.replace("_", " ").title().replace(" ", "") for def_name in defs}
        shared: set[str] = set()
        types = _Types(local, shared)
        # its rules page in the site's Rules section (`_rules_pages`), from its manifest
        rules = f"../rules/{ruleset.manifest.rules_page}" if ruleset.manifest is not None else None
        title = ruleset.title or name
        lines = [f"# {title}: requests and results", "",
                 f"Requests with `\"ruleset\": \"{name}\"`"
                 + (" (or no `\"ruleset\"`: this is the default)" if name == rulesets.DEFAULT else "")
                 + f"; generated from `{type(ruleset).__module__}`'s request types."
                 + (f" The rules they follow: [{title} rules]({rules})." if rules else ""), "",
                 "## Requests", ""]
        for kind, def_name in kinds.items():
            spec = ruleset.request_types[kind]
            lines += [f"### {kind}: {local[def_name]} {{#{_slug(local[def_name])}}}", "", f"Used by {_kind_use(kind)}.", ""]
            doc = defs[def_name].get("description") or (spec.__doc__ or "").strip().split("\n\n")[0]
            if doc:
                lines += [" ".join(doc.split()), ""]
            lines += types.table(defs[def_name]) + [""]
        parts = [d for d in defs if d not in kinds.values()]
        if parts:
            lines += ["## Parts of requests", ""]
            for def_name in parts:
                lines += [f"### {local[def_name]} {{#{_slug(local[def_name])}}}", ""]
                if defs[def_name].get("description"):
                    lines += [" ".join(defs[def_name]["description"].split()), ""]
                lines += types.table(defs[def_name]) or [f"Type: {types.name(defs[def_name])}"]
                lines += [""]
        lines += ["## Results", "",
                  "Every result is a JSON object (`.to_dict()` of the Python result); it names its",
                  "`ruleset` and the `seed` that replays it.", ""]
        for kind in kinds:
            result = protocol.get(_kind_result(kind))
            while result and "$ref" in result:  # result.<method> names the result's definition
                result = protocol.get(result["$ref"].rsplit("/", 1)[-1])
            if not result:
                continue
            lines += [f"### {kind} result {{#{kind}-result}}", ""]
            if result.get("description"):
                lines += [" ".join(result["description"].split()), ""]
            if result.get("required"):
                lines += ["Always present: " + ", ".join(f"`{field}`" for field in result["required"]) + ".", ""]
            if kind == "attack" and name in examples:
                example = examples[name]
                seed = None if example["request"].get("rolls") else 1
                answer = fracas.resolve(example["request"], seed=seed).to_dict()
                rows: list[tuple[str, str, str]] = []
                _shape(answer, "", rows)
                command = f"fracas attack {example['path']}" + (f" --seed {seed}" if seed is not None else "") + " --json"
                lines += [f"The result of [`{example['path']}`](../examples.md) (`{command}`), "
                          "computed when this page was built:", "",
                          "| field | JSON type | here |", "|---|---|---|"]
                lines += [f"| `{path}` | {kind_} | {('`' + shown.replace('|', '¦') + '`') if shown else ''} |"
                          for path, kind_, shown in rows]
                lines += ["", "??? example \"The whole result\"", "", "    ```json"]
                lines += ["    " + line for line in json.dumps(answer, indent=2).splitlines()]
                lines += ["    ```", ""]
        for ref in sorted(shared):
            if ref in protocol and ref not in local:
                lines += [f"### {ref} {{#{_slug(ref)}}}", "", f"One of: {types.name(protocol[ref])}", ""]
        if shared:
            # the shared names are listed after the results, under their own heading
            first = sorted(shared)[0]
            at = lines.index(f"### {first} {{#{_slug(first)}}}")
            lines.insert(at, "## Names")
            lines.insert(at + 1, "")
        path = f"reference/{name}.md"
        pages[path] = {"title": title, "content": "\n".join(lines) + "\n"}
        index.append(f"| [{title}]({name}.md) | `{name}` | {', '.join(kinds)} | "
                     + (f"[{title} rules]({rules})" if rules else "") + " |")
    index += ["", "Whole fights (scenario files) have their own format: [Encounters and simulations](../ENCOUNTERS.md),",
              "and its JSON Schema, [`scenario.schema.json`](../scenario.schema.json).", ""]
    pages = {REFERENCE_INDEX: {"title": "Requests and results", "content": "\n".join(index)}, **pages}
    return pages


# -- the Python API reference --------------------------------------------------------------

def _api_pages() -> dict[str, dict[str, Any]]:
    import griffe
    import msgspec

    import fracas

    package = griffe.load("fracas", search_paths=[str(ROOT / "src")], resolve_aliases=False)
    groups: dict[str, list[str]] = {"functions": [], "errors": [], "requests": [], "classes": [], "values": []}
    results: list[str] = []
    for name in fracas.__all__:
        value = getattr(fracas, name)
        if name not in package.members:
            groups["values"].append(name)
        elif isinstance(value, type) and issubclass(value, BaseException):
            groups["errors"].append(name)
        elif isinstance(value, type) and issubclass(value, msgspec.Struct):
            groups["requests"].append(name)
        elif isinstance(value, type):
            groups["classes"].append(name)
        elif callable(value):
            groups["functions"].append(name)
            returns = getattr(package.members[name], "returns", None)
            for part in (returns.iterate(flat=True) if hasattr(returns, "iterate") else [returns]):
                path = getattr(part, "canonical_path", "")
                if path.startswith("fracas.") and path not in results:
                    results.append(path)
        else:
            groups["values"].append(name)

    def first_line(name: str) -> str:
        doc = (getattr(getattr(fracas, name), "__doc__", None) or "").strip()
        return " ".join(doc.split("\n\n")[0].split()).replace("|", "\\|")

    pages: dict[str, dict[str, Any]] = {}
    index = ["# Python API", "",
             "`import fracas`: everything below is in `fracas.__all__`; these pages are rendered from",
             "the docstrings when the site is built. Requests are plain dicts (or JSON text) in the",
             "shapes of [Requests and results](../reference/index.md).", ""]
    index += ["## Functions", "", "| name | what it does |", "|---|---|"]
    for name in groups["functions"]:
        pages[f"api/{name}.md"] = {"title": f"fracas.{name}",
                                   "content": f"::: fracas.{name}\n    options:\n      heading_level: 1\n"}
        index.append(f"| [`fracas.{name}`]({name}.md) | {first_line(name)} |")
    for name in groups["classes"]:
        pages[f"api/{name}.md"] = {"title": f"fracas.{name}", "content": f"::: fracas.{name}\n    options:\n      heading_level: 1\n"}
    if groups["classes"]:
        index += ["", "## Classes", "", "| name | what it is |", "|---|---|"]
        index += [f"| [`fracas.{name}`]({name}.md) | {first_line(name)} |" for name in groups["classes"]]
    if results:
        body = ["# Results", "", "What the functions return; `to_dict()` gives the JSON shape of",
                "[Requests and results](../reference/index.md).", ""]
        body += [f"::: {path}\n    options:\n      show_root_full_path: false\n" for path in results]
        pages["api/results.md"] = {"title": "Results", "content": "\n".join(body)}
        index += ["", "[Results](results.md): " + ", ".join(f"`{path.rsplit('.', 1)[-1]}`" for path in results) + "."]
    if groups["requests"]:
        from fracas import rulesets

        default = next(m for m in rulesets.manifests() if m.name == rulesets.DEFAULT)
        homes = ", ".join(f"`{m.package}`" for m in rulesets.manifests())
        body = ["# Request types", "",
                "Each ruleset's typed requests, msgspec Structs for type checkers and for building",
                f"requests in code (a plain dict works the same), live in its package: {homes}",
                f"(`{default.package}.AttackRequest`, its parts `Attacker`, `Strike`, `Target`, …, and",
                "one request type per kind). The names below, at the top of `fracas`, are compatibility",
                f"aliases of the default ruleset's ({default.title}), kept because code builds requests with them:",
                f"`fracas.AttackRequest` is `{default.package}.AttackRequest`, the same class. Every",
                f"field is listed on [{default.title}: requests and results](../reference/{default.name}.md).", ""]
        body += [f"::: fracas.{name}\n    options:\n      show_root_full_path: false\n" for name in groups["requests"]]
        pages["api/requests.md"] = {"title": "Request types", "content": "\n".join(body)}
        index += ["", f"[Request types](requests.md) (compatibility aliases of `{default.package}`'s; each"
                  " ruleset's are in its package): " + ", ".join(f"`{n}`" for n in groups["requests"]) + "."]
    if groups["errors"]:
        body = ["# Errors", "", "Every error a request can cause is a `fracas.RequestError` whose message",
                "names the field path (`$.strikes[0].dice: …`).", ""]
        body += [f"::: fracas.{name}\n    options:\n      show_root_full_path: false\n" for name in groups["errors"]]
        pages["api/errors.md"] = {"title": "Errors", "content": "\n".join(body)}
        index += ["", "[Errors](errors.md): " + ", ".join(f"`{n}`" for n in groups["errors"]) + "."]
    if groups["values"]:
        index += ["", "## Values", ""]
        for name in groups["values"]:
            value = getattr(fracas, name)
            index.append(f"- `fracas.{name}`: `{value!r}` in the install that built these pages"
                         + (" (the active dice backend: `\"compiled\"` or `\"python\"`)" if name == "backend" else ""))
    return {API_INDEX: {"title": "Python API", "content": "\n".join(index) + "\n"}, **pages}
