#!/usr/bin/env python3
"""The repository stands alone: every Markdown link in its docs resolves (files and #anchors),
every reference of the form  docs/NAME.md, "Section"  in the code, tests, scripts and docs names
a heading of that document (a prefix of it, before its parenthesised file names, will do), and nothing cites a document or an issue
number that lives outside the repository.

    check_docs.py SOURCE_DIR        exit 0: all resolve; 1: the problems are listed
"""
import os
import re
import subprocess
import sys

root = os.path.abspath(sys.argv[1])
problems = []


def tracked(patterns):
    out = subprocess.run(["git", "-C", root, "ls-files", *patterns], capture_output=True, text=True, check=True)
    return [p for p in out.stdout.split("\n") if p]


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to '-'."""
    h = re.sub(r"`([^`]*)`", r"\1", heading.strip()).lower()
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def titles(path):
    """Headings of a Markdown file: their text (code spans unquoted) and their anchors."""
    text = open(os.path.join(root, path), encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    heads = [m.group(1).strip() for m in re.finditer(r"^#+\s+(.*)$", text, flags=re.M)]
    plain = [re.sub(r"`([^`]*)`", r"\1", h) for h in heads]
    return plain, {slug(h) for h in heads}


docs = tracked(["*.md"])
for doc in docs:
    text = open(os.path.join(root, doc), encoding="utf-8").read()
    text_nocode = re.sub(r"```.*?```", "", text, flags=re.S)
    for m in re.finditer(r"\[[^\]]*\]\(([^)\s]+)\)", text_nocode):
        target = m.group(1)
        if re.match(r"[a-z]+://", target) or target.startswith("mailto:"):
            continue
        path, _, anchor = target.partition("#")
        full = os.path.normpath(os.path.join(root, os.path.dirname(doc), path)) if path else os.path.join(root, doc)
        if not os.path.exists(full):
            problems.append(f"{doc}: link to missing file '{target}'")
            continue
        if anchor and full.endswith(".md"):
            _, anchors = titles(os.path.relpath(full, root))
            if anchor not in anchors:
                problems.append(f"{doc}: link to missing anchor '{target}'")

# References "docs/NAME.md, "Section"" in code, tests, scripts and docs.
ref = re.compile(r'(docs/[\w.-]+\.md),\s*(?://\s*)?"([^"]+)"')
sources = tracked(["src/*", "tests/*", "scripts/*", "slurm/*", "*.md", "cmake/*", "CMakeLists.txt"])
for f in sources:
    if f.startswith("tests/docs/"):
        continue
    try:
        text = open(os.path.join(root, f), encoding="utf-8").read()
    except (UnicodeDecodeError, IsADirectoryError):
        continue
    text = re.sub(r"\n\s*(//|#)\s*", " ", text)  # a reference may wrap onto the next comment line
    for m in ref.finditer(text):
        doc, section = m.group(1), m.group(2)
        if not os.path.exists(os.path.join(root, doc)):
            problems.append(f"{f}: cites missing {doc}")
            continue
        names, _ = titles(doc)
        if not any(section == n or n.startswith(section + " ") or n.startswith(section + " (") for n in names):
            problems.append(f'{f}: {doc} has no section "{section}"')
    for m in re.finditer(r"DESIGN\.md|shared/|issues? #\d+|issues? \d+\b", text):
        problems.append(f"{f}: cites something outside the repository: '{m.group(0)}'")

for p in problems:
    print(p)
print(f"docs: {len(docs)} Markdown files, {len(sources)} sources checked, {len(problems)} problems")
sys.exit(1 if problems else 0)
