#pragma once

#include <QColor>

class QPalette;

/// The colours a TimeSeriesChart draws with, derived from the application
/// palette so the chart follows light and dark desktops. Dark means the
/// palette's Window colour is dark (lightness < 128): Qt 6.4 has no
/// colour-scheme hint, so the palette is the only signal. Plain value.
class ChartPalette
{
public:
    static ChartPalette from(const QPalette &palette);

    /// `requested` adjusted (lighter on dark, darker on light) until its
    /// contrast against `background` is at least 4:1, so a series colour
    /// picked on one theme stays readable on the other. Above WCAG's 3:1 for
    /// graphics: a 2 px line on a dark plot looked dim at 3:1 (the panels'
    /// blue, #1565c0, is 3.0:1 on a dark base). Hue is kept.
    QColor seriesColor(const QColor &requested) const;

    bool dark = false;
    QColor background;      ///< plot and chart background (palette Base)
    QColor text;            ///< labels (palette Text)
    QColor grid;            ///< axis grid lines
    QColor crosshair;       ///< the crosshair's vertical line
    QColor labelBackground; ///< boxes behind crosshair and marker labels
    QColor labelBorder;
    QColor marker; ///< marker lines and their label text
};
