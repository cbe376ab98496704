"""Generates json_golden.json: what CPython's json.loads does with each request body.

Run from the repository root with CPython 3.11 (the version the FastAPI service runs on):
    python3 shared/validate/testdata/json_golden.py > shared/validate/testdata/json_golden.json
The Go test (json_test.go) feeds the same bytes to ParseJSON and must get the same value, or
the same (msg, pos) for a json.JSONDecodeError, or the same class of any other exception.

json.loads is called on bytes, as Starlette's Request.json() does, so the encoding detection of
json.detect_encoding and the 'surrogatepass' decoding are part of what is pinned here.
"""
import codecs
import json
import struct
import sys

assert sys.version_info[:2] == (3, 11), "the service runs CPython 3.11; messages differ elsewhere"


def nest(opener, closer, depth, inner=b"1"):
    return opener * depth + inner + closer * depth


CASES = [
    # Scalars.
    b"null", b"true", b"false", b"0", b"-0", b"1", b"-1", b"123", b"1.0", b"1.5", b"-1.5e10",
    b"1e5", b"1E+5", b"1e-5", b"0.0", b"-0.0", b"0e0", b"1e400", b"-1e400", b"1e-400",
    b"12345678901234567890123", b"3.141592653589793238462643383279",
    b"NaN", b"Infinity", b"-Infinity", b'""', b'"abc"',
    b"1" * 4300, b"-" + b"9" * 4300, b"1" * 5000 + b".0", b"0." + b"0" * 5000 + b"1",
    # Whitespace (only space, tab, LF and CR are JSON whitespace).
    b" \t\n\r 1 \r\n\t ", b"[ ]", b"{ }", b"[\n1 ,\t2 ]", b'{ "a" : 1 , "b" : [ ] }',
    b"", b" ", b"\n\n", b"\x0b1", b"\x0c1", "\u00a01".encode(), "1\u00a0".encode(),
    "\u20281".encode(), b"[1,\x0c2]", b"[1,\x012]", b"1 2",
    # Containers and nesting.
    b"[]", b"{}", b"[[[]]]", b'[1,"a",null,true,false,1.5,{}]', b'{"a":{"b":{"c":[1,{"d":null}]}}}',
    nest(b"[", b"]", 500), nest(b'{"k":', b"}", 500), nest(b"[", b"]", 900, b""),
    b'{"a":1,"a":2}', b'{"a":1,"b":2,"a":3}', b'{"":0}', b'[{"a":[]},{"a":{}}]',
    # Escapes.
    b'"\\"\\\\\\/\\b\\f\\n\\r\\t"', b'"\\u0041"', b'"\\u00e9"', b'"\\u20AC"', b'"\\ud83d\\ude00"',
    b'"\\uD83D\\uDE00"', b'"\\u0000"', b'"a\\u0000b"', b'"\\ud800"', b'"\\udc00"',
    b'"\\ud800\\u0041"', b'"\\ud800\\ud800\\udc00"', b'"\\ud800\\udbff"', b'"\\udc00\\ud800"',
    b'{"\\ud800":1}', b'"\\u12345"', b'"x\\ud83d\\ude00y"',
    # Raw non-ASCII text.
    "\"h\u00e9llo\"".encode(), "\"\u65e5\u672c\u8a9e\"".encode(), "\"\U0001F600\"".encode(),
    "\"\ufffd\"".encode(), "\"\u2028\u2029\"".encode(), b'"\x7f"', "{\"\u043a\u043b\u044e\u0447\": 1}".encode(),
    # Lone surrogates written as UTF-8 bytes: the surrogatepass decoder lets them through.
    b'"\xed\xa0\x80"', b'"\xed\xa0\x80\xed\xb0\x80"', b'"\xed\xbf\xbf"', b'{"\xed\xa0\x80":1}',
    b'"\xed\xa0\x80\\udc00"', b"\xed\xa0\x80",
    # Byte order marks and the other encodings json.detect_encoding picks.
    codecs.BOM_UTF8 + b"{}", codecs.BOM_UTF8 + b" [1]", codecs.BOM_UTF8, codecs.BOM_UTF8 * 2 + b"1",
    codecs.BOM_UTF8 + '["\u00e9",]'.encode(),
    '{"a":"\u00e9\U0001F600"}'.encode("utf-16"), '{"a":"\u00e9\U0001F600"}'.encode("utf-16-le"),
    '{"a":"\u00e9\U0001F600"}'.encode("utf-16-be"), '["\U0001F600", x]'.encode("utf-32"),
    '{"a":"\u00e9\U0001F600"}'.encode("utf-32-le"), '[1]'.encode("utf-32-be"),
    b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff",
    b'\xff\xfe"\x00\x00\xd8"\x00', b'\xff\xfe"\x00\x00\xd8\x00\xdc"\x00', b'\xff\xfe"\x00\x00\xdc\x00\xd8"\x00',
    b'\xff\xfe"\x00\x00\xd8', b'\xff\xfe\x00\x00"\x00\x00\x00\x00\xd8\x00\x00\x00\xdc\x00\x00"\x00\x00\x00',
    b"1\x00", b" \x00", b"\x00", b"\x00a", b"\x00ab", b"1\x002\x00 \x00", b"1\x00\x00\x00\x00\x00\x00\x00",
    b"1\x00\x002", b"\xff\xfe1\x00\xff\xfe",
    # Invalid values.
    b"x", b"nul", b"nulL", b"True", b"tru", b"fals", b"-", b"-x", b"+1", b".5", b"-Inf", b"Nan",
    b"infinity", b"NaNa", b"nullx", b"01", b"-01", b"00", b"1.", b"1.e5", b"1e", b"1e+", b"1E-",
    b"1.5.3", b"0x10", b"1_000", b"'single'", b"[-]", b"[1e]",
    # Strings.
    b'"abc', b'"', b'"\\', b'"\\"', b'"\x01"', b'"\t"', b'"a\nb"', b'"abc\x01', b'"a\\x"', b'"\\u12"',
    b'"\\u12g4"', b'"\\uXYZW"', b'"\\u"', b'"\\u1234', b'"\\u123', b'"\\ud800\\uzzzz"', b'"\\ud800\\u12"',
    b'"\\ud800\\udc00', b'"\\ud800\\udc0', b'"\\x', "\"\\\u00e9\"".encode(), "\"\\u12\u00e9\"".encode(),
    b'"\\ud800\\u"', b'"\\a\x01"', b'"\x01\\a"',
    # Arrays.
    b"[", b"[1", b"[1,", b"[1,]", b"[,1]", b"[1 2]", b"[1:2]", b"]", b"[}", b"[[]", b"[1]]", b"[1,,2]",
    # Objects.
    b"{", b'{"a"', b'{"a":', b'{"a":1', b'{"a":1,', b'{"a":1,}', b"{a:1}", b"{'a':1}", b'{"a" 1}',
    b'{"a":1 "b":2}', b"{1:2}", b'{"a":}', b"{} {}", b"}", b"{some broken json}", b'{"a":1,,"b":2}',
    b'{"a"::1}', b'{"a\x01":1}',
    # Multi-byte characters before the error: positions count code points, not bytes.
    "\"\u65e5\u672c\u8a9e\" x".encode(), "[\"\u00e9\", x]".encode(), "{\"\u043a\u043b\u044e\u0447\": 1,, }".encode(),
    "\"\U0001F600\" 1".encode(), "[\"\U0001F600\U0001F600\", tru]".encode(), "{\"\U0001F600\" 1}".encode(),
    "\"\u00e9\u00e9\x01\"".encode(), "[\"\u00e9\", \"\\q\"]".encode(), "[\"\u00e9\", \"\\u00zz\"]".encode(),
    "\"\u00e9\u00e9".encode(), b'["\xed\xa0\x80", x]', "\u00e9".encode(), "[1, \u00e9]".encode(),
    "{\"\u00e9\":1}\u00e9".encode(),
    # Not text at all: Python raises UnicodeDecodeError before parsing.
    b"\xff", b'"\xff"', b'{"a":"\xc3"}', b"[1, \xe2\x82]", b'"\xc0\x80"', b'"\xf4\x90\x80\x80"', b"\x80",
    b"x\xff", b'"\xed\xa0"', b'"\xed\xa0\x80\xff"', codecs.BOM_UTF8 + b"12\xff", b"\xef\xbb",
    "\"\u00e9\"".encode() + b"\xfe", b'"\xf0\x9f\x98', b"\x00[\x00]\x00", b"\xff\xfe1",
    b'\xff\xfe"\x00\x00\xd8A', b'\xff\xfe\x00\x00"\x00\x00', b"\xff\xfe\x00\x00\x00\x00\x11\x00",
    b"\x00\x00\x00\x01\x00\x00\x00\x00\x00", b"1\x00\x00\x00 ",
    # Integers longer than sys.int_info.default_max_str_digits: ValueError.
    b"1" * 4301, b"-" + b"1" * 4301, b"[1, " + b"2" * 5000 + b", x]", b"[x, " + b"2" * 5000 + b"]",
    # Nesting deeper than the recursion limit: RecursionError.
    nest(b"[", b"]", 1001, b""), nest(b'{"k":', b"}", 1001), b"[" * 3000, b"[x" + b"[" * 2000,
    b"[" * 2000 + b"x",
]


def fix(s):
    # Go strings cannot hold lone surrogates; ParseJSON turns each into U+FFFD.
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in s)


def canon(v):
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": "nan" if v != v else struct.pack(">d", v).hex()}
    if isinstance(v, str):
        return {"str": fix(v)}
    if isinstance(v, list):
        return {"list": [canon(x) for x in v]}
    return {"dict": sorted(([fix(k), canon(x)] for k, x in v.items()), key=lambda kv: kv[0])}


def case(body):
    try:
        text = body.decode("utf-8")
        out = {"in": text}
    except UnicodeDecodeError:
        out = {"in_hex": body.hex()}
    try:
        value = json.loads(body)
    except json.JSONDecodeError as e:
        out["error"] = {"type": "JSONDecodeError", "msg": e.msg, "pos": e.pos}
        return out
    except UnicodeDecodeError as e:
        out["error"] = {"type": "UnicodeDecodeError", "pos": e.start}
        return out
    except (ValueError, RecursionError) as e:
        out["error"] = {"type": type(e).__name__}
        return out
    out["value"] = value  # made canonical by main, under a higher recursion limit
    return out


def main():
    assert len(CASES) == len(set(CASES)), "duplicate case"
    cases = [case(b) for b in CASES]
    # Canonical values nest two levels for one of the body, and 3.11 comprehensions take a
    # frame each: give canon and json.dumps room, now that every json.loads has run under
    # the default limit, as in the service.
    sys.setrecursionlimit(10000)
    for c in cases:
        if "value" in c:
            c["value"] = canon(c["value"])
    # One case a line keeps diffs of the golden file readable.
    lines = ",\n".join(json.dumps(c, ensure_ascii=False) for c in cases)
    sys.stdout.write('{"python": %s, "cases": [\n%s\n]}\n' % (json.dumps(sys.version.split()[0]), lines))


if __name__ == "__main__":
    main()
