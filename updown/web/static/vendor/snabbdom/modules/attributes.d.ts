import { Module } from "./module.js";
export type Attrs = Record<string, string | number | boolean>;
export declare const attributesModule: Module;
