import { expect, it } from "vitest";
import { destr } from "../src";

// A number a double cannot hold exactly is returned as the string it was, so no digit
// is silently lost; so is text that merely starts with a digit.
it("keeps numbers too long for a double as strings", () => {
  expect(destr("12345678901234567890")).toBe("12345678901234567890");
  expect(destr("0.123456789012345678901")).toBe("0.123456789012345678901");
  expect(destr("1st of May")).toBe("1st of May");
});
