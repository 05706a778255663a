/**
 * The lending program's custom error codes. The one table lives in `@cistern/protocol` (program-errors.ts,
 * mirrored from programs/lending/LAYOUT.md); these names are the sdk's view of it.
 */
import {
  getProgramErrorEntry,
  PROGRAM_ERROR_CODE,
  PROGRAM_ERRORS,
  type ProgramErrorCode,
  type ProgramErrorName,
} from "@cistern/protocol";

/** The program's error table (code -> name and meaning). */
export const LENDING_ERRORS = PROGRAM_ERRORS;
/** A lending program error code. */
export type LendingErrorCode = ProgramErrorCode;
/** A lending program error name. */
export type LendingErrorName = ProgramErrorName;
/** Lending error codes by name, e.g. `LENDING_ERROR_CODE.LtvExceeded === 6027`. */
export const LENDING_ERROR_CODE = PROGRAM_ERROR_CODE;
/** The table entry of a lending error code, or undefined for a code the program does not define. */
export const getLendingErrorEntry = getProgramErrorEntry;
