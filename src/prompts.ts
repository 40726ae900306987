/**
 * Prompt templates live as files in `prompts/<name>.md`; `{{var}}` placeholders are filled in one pass (so a
 * value that itself contains `{{...}}`, such as an issue text, is never substituted again).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROMPTS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'prompts');

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const templates = new Map<string, string>();

export function loadPromptTemplate(name: string): string {
  let template = templates.get(name);
  if (template === undefined) {
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) throw new Error(`invalid prompt name "${name}"`);
    const file = path.join(PROMPTS_DIR, `${name}.md`);
    try {
      template = readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`prompt template "${name}" not found at ${file}: ${(err as Error).message}`);
    }
    templates.set(name, template);
  }
  return template;
}

/** Renders `prompts/<name>.md`; throws naming every placeholder that has no value. */
export function renderPrompt(name: string, vars: Readonly<Record<string, string>>): string {
  const template = loadPromptTemplate(name);
  const missing = new Set<string>();
  const text = template.replace(PLACEHOLDER, (_m, key: string) => {
    const value = vars[key];
    if (value === undefined) {
      missing.add(key);
      return '';
    }
    return value;
  });
  if (missing.size > 0) throw new Error(`prompt "${name}": no value for ${[...missing].map((k) => `{{${k}}}`).join(', ')}`);
  return text;
}
