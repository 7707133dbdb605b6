export { APP_VERSION } from "./version.js";
