// calc is TypeScript: node runs it through tsx, from the project's devDependencies.
export function double(x: number): number {
  return 2 * x;
}
