const isNumber = require('is-number');

exports.double = (n) => {
  if (!isNumber(n)) throw new TypeError('not a number: ' + n);
  return Number(n) * 2;
};
