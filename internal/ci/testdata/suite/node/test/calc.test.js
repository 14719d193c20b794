const test = require('node:test');
const assert = require('node:assert');
const { add, sub } = require('../calc.js');

test('adds', () => { assert.strictEqual(add(2, 3), 5); });

test.describe('sub', () => {
  test.it('subtracts', () => { assert.strictEqual(sub(5, 3), 2); });
});
