import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The order in which `npm test` hands files to its workers. vitest's own order runs the projects one after
 * another by name (isolated, node, workers), so the workers project's 4,900 tests waited for the node
 * project's slowest files, which mostly wait on a browser or a `wrangler dev`. Here those files start
 * first and the workers project runs beside them; each project keeps vitest's order inside it (longest or
 * largest first), and the workers project's files stay together so that its shared runtime is reused from
 * one file to the next (vitest ends a shared runtime when the next file in line belongs to another project).
 */
const FIRST = ["test/node/docs-examples.test.ts", "test/node/openapi-contract.test.ts"];
const PROJECTS = ["workers", "isolated", "node"];

export class Sequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const first = FIRST.indexOf(relative(spec.project.config.root, spec.moduleId));
      if (first !== -1) return first;
      const project = PROJECTS.indexOf(spec.project.name);
      return FIRST.length + (project === -1 ? PROJECTS.length : project);
    };
    return sorted.map((spec, i) => ({ spec, i, r: rank(spec) })).sort((a, b) => a.r - b.r || a.i - b.i).map(({ spec }) => spec);
  }
}
