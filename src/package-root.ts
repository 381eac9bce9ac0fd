// The installed package's root directory. This module sits two levels below it both when compiled
// by tsc (build/src/package-root.js) and in the bin's bundle (build/bundle/<chunk>.js).
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT: string = fileURLToPath(new URL('../../', import.meta.url));
