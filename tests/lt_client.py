"""A LibreTranslate client written to its published API (the /translate and /languages of
https://libretranslate.com/docs, as the libretranslatepy package sends them: form fields
with urllib), run against nmt-serve by tests/cli/serve_api.cases.

usage: lt_client.py URL [API_KEY] < sentences   prints GET /languages, then each sentence's
translation sent as a form (source "auto"), then all of them in one JSON request (q a list,
the source from /languages), then the error of an html request."""
import json
import sys
import urllib.error
import urllib.parse
import urllib.request


class LibreTranslateAPI:
    def __init__(self, url, api_key=None):
        self.url = url.rstrip("/") + "/"
        self.api_key = api_key

    def _post(self, path, params, as_json=False):
        if self.api_key is not None:
            params["api_key"] = self.api_key
        if as_json:
            data, kind = json.dumps(params).encode(), "application/json"
        else:
            data, kind = urllib.parse.urlencode(params).encode(), "application/x-www-form-urlencoded"
        req = urllib.request.Request(self.url + path, data=data, method="POST", headers={"Content-Type": kind})
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read().decode())

    def translate(self, q, source="en", target="es", fmt=None, as_json=False):
        params = {"q": q, "source": source, "target": target}
        if fmt:
            params["format"] = fmt
        return self._post("translate", params, as_json)["translatedText"]

    def languages(self):
        with urllib.request.urlopen(self.url + "languages", timeout=30) as r:
            return json.loads(r.read().decode())


def main():
    lt = LibreTranslateAPI(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
    langs = lt.languages()
    print("languages:", ", ".join(f"{l['code']} ({l['name']}) -> {'/'.join(l['targets'])}" for l in langs))
    src, tgt = langs[0]["code"], langs[0]["targets"][0]
    lines = sys.stdin.read().splitlines()
    for line in lines:
        print("form:", lt.translate(line, "auto", tgt))
    print("json:", " | ".join(lt.translate(lines, src, tgt, "text", as_json=True)))
    try:
        lt.translate(lines[0], src, tgt, "html")
    except urllib.error.HTTPError as e:
        print("html:", e.code, json.loads(e.read().decode())["error"])


if __name__ == "__main__":
    main()
