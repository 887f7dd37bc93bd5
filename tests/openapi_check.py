#!/usr/bin/python3
"""nmt-serve's GET /openapi.json against the OpenAPI Initiative's schema of OpenAPI 3.0
(Debian's openapi-specification, read by python3-jsonschema's Draft 4 validator, the
schema's own draft), then its paths against the routes the server's 404 names.

Usage: /usr/bin/python3 tests/openapi_check.py URL
Prints "valid OpenAPI 3.0.x" and the paths with their methods; exit 1 on an invalid document
or a route left out (one line on stderr), 77 when the package or the schema is missing."""
import json
import re
import sys
import urllib.error
import urllib.request

SCHEMA = "/usr/share/openapi-specification/schemas/v3.0/schema.json"
try:
    import jsonschema
    with open(SCHEMA) as f:
        schema = json.load(f)
except (ImportError, OSError):
    print("python3-jsonschema or openapi-specification is missing (.ci/deps): skipped", file=sys.stderr)
    sys.exit(77)

url = sys.argv[1].rstrip("/")
with urllib.request.urlopen(url + "/openapi.json", timeout=30) as r:
    doc = json.loads(r.read().decode())
errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
if errors:
    print("invalid: %s at %s" % (errors[0].message, "/".join(map(str, errors[0].path))), file=sys.stderr)
    sys.exit(1)
print("valid OpenAPI", doc["openapi"])
try:
    urllib.request.urlopen(url + "/no-such-path", timeout=30)
except urllib.error.HTTPError as e:
    routes = re.findall(r"(GET|POST) (/[a-z.]*)", json.loads(e.read().decode())["error"])
missing = [f"{m} {p}" for m, p in routes if m.lower() not in doc["paths"].get(p, {})]
if missing:
    print("routes the 404 names but the document does not: " + ", ".join(missing), file=sys.stderr)
    sys.exit(1)
for p, ops in doc["paths"].items():
    print(p, " ".join(sorted(m.upper() + " " + ",".join(sorted(o["responses"])) for m, o in ops.items())))
