import { expect, it, vi } from "vitest";
import { destr } from "../src";

const tenfold = (_key: string, value: unknown) =>
  typeof value === "number" ? value * 10 : value;

it("calls the reviver on every parsed value", () => {
  expect(destr('{ "a": 1, "b": { "c": 2 }, "d": "x" }', { reviver: tenfold })).toStrictEqual({
    a: 10,
    b: { c: 20 },
    d: "x",
  });
  expect(destr("[1, 2]", { reviver: tenfold })).toStrictEqual([10, 20]);
});

it("calls the reviver on a top-level string too", () => {
  const upper = (_key: string, value: unknown) =>
    typeof value === "string" ? value.toUpperCase() : value;
  expect(destr('"hello"', { reviver: upper })).toBe("HELLO");
});

it("never shows the reviver a dropped key", () => {
  vi.spyOn(console, "warn").mockImplementation(() => {});
  const seen: string[] = [];
  const out = destr<Record<string, unknown>>('{ "__proto__": { "x": 1 }, "n": 1 }', {
    reviver: (key, value) => {
      seen.push(key);
      return tenfold(key, value);
    },
  });
  expect(out).toStrictEqual({ n: 10 });
  expect(seen).not.toContain("__proto__");
});
