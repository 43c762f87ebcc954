// Minimal typing for the parts of pdfkit (a dev dependency without bundled types) the ingest tests use.
declare module 'pdfkit' {
  interface PDFDocumentOptions {
    userPassword?: string;
    ownerPassword?: string;
    /** Page size in points. */
    size?: [number, number];
    margin?: number;
    autoFirstPage?: boolean;
  }
  export default class PDFDocument {
    constructor(options?: PDFDocumentOptions);
    /** The document's outline (bookmarks); an item points at the current page. */
    outline: { addItem(title: string): unknown };
    on(event: 'data', listener: (chunk: Buffer) => void): this;
    on(event: 'end', listener: () => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
    text(text: string, x?: number, y?: number, options?: { lineBreak?: boolean }): this;
    registerFont(name: string, file: string, family?: string): this;
    font(name: string): this;
    fontSize(size: number): this;
    addPage(options?: PDFDocumentOptions): this;
    image(src: Buffer, x: number, y: number, options?: { width?: number; height?: number }): this;
    end(): void;
  }
}
