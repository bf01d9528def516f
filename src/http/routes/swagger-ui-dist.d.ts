/** swagger-ui-dist ships no types; this is the one file of it the API reference imports. */
declare module "swagger-ui-dist/absolute-path.js" {
  /** The absolute path of the installed swagger-ui-dist folder. */
  const absolutePath: () => string;
  export default absolutePath;
}
