/** The definition channel: which files define a class/function/method, by bare and by qualified name. */
import type { Definition } from '../../parsing/types.ts';
import type { IndexChannel } from './types.ts';

export interface DefinitionsPart {
  /** every class/function/method with this bare name */
  definitionsOf(name: string): readonly Definition[];
  /** definitions whose qualified name is exactly this ("Class.method") */
  definitionsByQualifiedName(qualifiedName: string): readonly Definition[];
  /** number of distinct files defining this bare name (for down-weighting common names) */
  definingFileCount(name: string): number;
  definitionsInFile(path: string): readonly Definition[];
}

const none: readonly never[] = Object.freeze([]);

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export const definitionsChannel: IndexChannel<DefinitionsPart> = {
  name: 'definitions',
  async open() {
    return {
      async finish(records) {
        const byName = new Map<string, Definition[]>();
        const byQualified = new Map<string, Definition[]>();
        const byFile = new Map<string, Definition[]>();
        for (const r of records) {
          byFile.set(r.file.path, r.definitions);
          for (const d of r.definitions) {
            push(byName, d.name, d);
            push(byQualified, d.qualifiedName, d);
          }
        }
        return {
          definitionsOf: (name) => byName.get(name) ?? none,
          definitionsByQualifiedName: (q) => byQualified.get(q) ?? none,
          definingFileCount: (name) => new Set((byName.get(name) ?? []).map((d) => d.path)).size,
          definitionsInFile: (p) => byFile.get(p) ?? none,
        };
      },
    };
  },
};
