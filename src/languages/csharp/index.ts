/**
 * C#: localization only. The SWE-bench harness keys no C# repositories (MAP_REPO_TO_EXT), so there are no
 * log parsers or environment specs to port yet; a C# instance is localized and repaired, not evaluated.
 */
import type { LanguageFolder } from '../language-folder.ts';
import { csharp } from './csharp.ts';

export const csharpFolder = {
  name: 'csharp',
  languages: [csharp],
} as const satisfies LanguageFolder;
