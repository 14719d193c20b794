// calc checks its input with is-number, a devDependency the prepare installs.
const isNumber = require('is-number');

exports.double = (x) => {
  if (!isNumber(x)) throw new TypeError('not a number: ' + x);
  return 2 * Number(x);
};
