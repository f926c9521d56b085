import { Module } from "./module.js";
export type Dataset = Record<string, string>;
export declare const datasetModule: Module;
