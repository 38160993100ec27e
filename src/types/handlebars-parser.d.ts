/// <reference types="handlebars" />
/** Types of the one Handlebars module the Worker imports: the template parser (see timeline-template.ts). */
declare module "handlebars/dist/cjs/handlebars/compiler/base" {
  export function parse(input: string): hbs.AST.Program;
}
