/**
 * Loads a package as an ES module by its name: the one place the CLI's code calls import() on a package (exceljs,
 * ora and the optional OCR and embedding packages, which load only where they are needed). The CLI's bundle
 * (scripts/bundle.mjs) puts the launcher's own import() in place of this module, since the script node:vm compiles
 * there can make an import() only through an experimental loader option that warns on every command using it.
 */
export function importPackage<T>(name: string): Promise<T> {
  return import(name) as Promise<T>;
}
