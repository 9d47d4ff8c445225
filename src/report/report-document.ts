/**
 * What the exporters render: the accepted sections of a report in order, each at its accepted
 * version, with the figures' PNGs resolved. Built by the report book; exporters are pure functions
 * of it.
 */

import type { Database } from '../ports/database.js';
import type { Cell, Figure, FigureCheck } from './report.js';

export interface DocumentFigure extends Figure {
  png: Buffer;
  /** Index into the section's cells of the cell that drew it, when known. */
  cell?: number;
}

export interface DocumentSection {
  id: string;
  stage?: string;
  title: string;
  /** Markdown. */
  narrative: string;
  /** The accepted version's number (1 when accepted as first drafted). */
  version: number;
  request: string;
  cells: Cell[];
  figures: DocumentFigure[];
  acceptedBy: string;
  acceptedAt: number;
  /** What reviewers asked for in revisions before this version was accepted, oldest first. */
  feedback?: string[];
  /** The narrative's figures as checked against the thread's results. */
  checks?: FigureCheck[];
}

export interface ReportDocument {
  title: string;
  threadKey: string;
  createdAt: number;
  exportedAt: number;
  /** The databases the SQL ran on, for the notebook's connection cell. */
  databases: Array<{ name: string; dialect: Database['dialect'] }>;
  sections: DocumentSection[];
}

/** One exported file; `path` is relative (e.g. `report.md`, `figures/s1-1.png`). */
export interface ReportFile {
  path: string;
  mime: string;
  content: Buffer;
}
