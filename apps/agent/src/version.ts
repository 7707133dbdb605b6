declare const __SWH_VERSION__: string | undefined;

/** The app's version from its package.json, injected at bundle time ("dev" when run from source). */
export const APP_VERSION: string = typeof __SWH_VERSION__ === "string" ? __SWH_VERSION__ : "dev";
