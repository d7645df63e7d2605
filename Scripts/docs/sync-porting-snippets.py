#!/usr/bin/env python3
"""Copies the tested snippets of PortingArticleTests.swift into the porting article (run after editing either).

The test `articleMatchesTests` fails when they differ, so the article never shows code that was not run.
"""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTS = ROOT / "Tests/StrongroomClientTests/PortingArticleTests.swift"
ARTICLE = ROOT / "Sources/StrongroomClient/Documentation.docc/PortingFromE3dbSwift.md"


def snippets(source: str) -> dict[str, str]:
    found, name, lines = {}, None, []
    for line in source.split("\n"):
        stripped = line.strip()
        if stripped.startswith("// porting: "):
            name, lines = stripped.split(" ")[2], []
        elif stripped == "// end porting" and name:
            indent = min(len(l) - len(l.lstrip(" ")) for l in lines if l.strip())
            found[name] = "\n".join(l[indent:] for l in lines)
            name = None
        elif name is not None:
            lines.append(line)
    return found


tested = snippets(TESTS.read_text())
article = ARTICLE.read_text()


def replace(match: re.Match) -> str:
    name = match.group(1)
    return f"<!-- porting: {name} -->\n```swift\n{tested[name]}\n```\n<!-- end porting -->"


ARTICLE.write_text(re.sub(r"<!-- porting: ([a-z-]+) -->\n```swift\n.*?\n```\n<!-- end porting -->", replace, article, flags=re.S))
print(f"synced {len(tested)} snippets")
