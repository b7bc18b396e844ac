'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const bigjson = require('../src/bigjson');

test('integers past 2**53 keep every digit; everything else parses as JSON.parse does', () => {
  const text = '{"seed": 18446744073709551615, "small": -42, "f": 1.5e3, "s": "12345678901234567890 \\" x", ' +
    '"list": [9007199254740993, 9007199254740991, -9223372036854775808]}';
  const value = bigjson.parse(text);
  assert.equal(value.seed, 18446744073709551615n);
  assert.equal(value.small, -42);
  assert.equal(value.f, 1500);
  assert.equal(value.s, '12345678901234567890 " x');
  assert.deepEqual(value.list, [9007199254740993n, 9007199254740991, -9223372036854775808n]);
  assert.equal(bigjson.stringify(value),
    '{"seed":18446744073709551615,"small":-42,"f":1500,"s":"12345678901234567890 \\" x",' +
    '"list":[9007199254740993,9007199254740991,-9223372036854775808]}');
});

test('malformed JSON still throws', () => {
  assert.throws(() => bigjson.parse('{"a": 1'), SyntaxError);
  assert.throws(() => bigjson.parse('"unterminated'), SyntaxError);
});
