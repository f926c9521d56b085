import { Module } from "./module.js";
export type Props = Record<string, any>;
export declare const propsModule: Module;
