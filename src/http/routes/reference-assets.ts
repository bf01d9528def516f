import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Where the API reference page's Swagger UI files come from. swagger-ui-dist is a build-time
 * dependency only: it depends on @scarf/scarf, whose install script reports every install to a
 * third party, and a library must not do that to the apps that install it. So the build copies
 * the few files the page needs (with their licences) into `dist/swagger-ui/`, the way
 * @fastify/swagger-ui ships them, and the installed package serves them from there.
 */

/** The files of swagger-ui-dist the page loads; nothing else of it is served. */
export const REFERENCE_ASSETS: readonly string[] = ["swagger-ui.css", "swagger-ui-bundle.js", "favicon-32x32.png", "favicon-16x16.png"];

/** Shipped beside them: Swagger UI's licence and NOTICE (Apache-2.0), and the licences of what its bundle contains. */
export const REFERENCE_LICENSES: readonly string[] = ["LICENSE", "NOTICE", "swagger-ui-bundle.js.LICENSE.txt"];

/** The folder, beside the built modules in dist/, that the build copies them into. */
export const REFERENCE_ASSET_DIR = "swagger-ui";

/**
 * The folder to serve the files from: the copy in the built package, or, when the library runs
 * from its sources (its own tests, `npm start`), the swagger-ui-dist dev dependency. Null when
 * neither is there, as when a host app bundles the library without copying the folder.
 */
export function referenceAssetRoot(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  const shipped = join(here, REFERENCE_ASSET_DIR);
  if (REFERENCE_ASSETS.every((file) => existsSync(join(shipped, file)))) return shipped;
  try {
    return dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  } catch {
    return null;
  }
}
