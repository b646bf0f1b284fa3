// The portable SHA-256 (React Native's fallback) against FIPS 180-4's examples and node:crypto.

import {test} from 'node:test';
import assert from 'node:assert/strict';
import {createHash} from 'node:crypto';
import {sha256Hex, sha256HexPortable} from '../src/sha256.js';

test('the portable hash gives the standard answers', () => {
  const text = (s) => new TextEncoder().encode(s);
  assert.equal(
    sha256HexPortable(text('')),
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  );
  assert.equal(
    sha256HexPortable(text('abc')),
    'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  );
  assert.equal(
    sha256HexPortable(text('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')),
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  );
});

test('the portable hash agrees with node:crypto at every padding boundary and offset', async () => {
  for (const size of [1, 55, 56, 63, 64, 65, 119, 120, 128, 4096, 100003]) {
    const backing = new Uint8Array(size + 3);
    const bytes = backing.subarray(3);
    bytes.forEach((_, i) => (bytes[i] = (i * 131 + 17) & 0xff));
    const expected = createHash('sha256').update(bytes).digest('hex');
    assert.equal(sha256HexPortable(bytes), expected, `size ${size}`);
    assert.equal(await sha256Hex(bytes), expected, `size ${size}`);
  }
});
