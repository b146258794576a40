import { useLayoutEffect, useRef } from 'react';
import * as echarts from 'echarts/core';
import type { EChartsCoreOption } from 'echarts/core';
import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { DatasetComponent, GridComponent, LegendComponent, TitleComponent, TooltipComponent } from 'echarts/components';
import { SVGRenderer } from 'echarts/renderers';

// Only what the shared chart module's options use (src/dashboards/charts): line and area are LineChart, drawn as SVG.
// (echarts.use is ECharts' registration, not a React hook.)
echarts.use([LineChart, BarChart, PieChart, GridComponent, TooltipComponent, LegendComponent, TitleComponent, DatasetComponent, SVGRenderer]);

interface Props {
  option: EChartsCoreOption;
  /** The accessible name: the widget's title and chart type (the SVG inside is a picture to assistive technology). */
  label: string;
}

/** An ECharts option drawn as SVG in a box that fills its tile, redrawn when the option changes and resized with the tile. */
export function EChart({ option, label }: Props) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);

  // Layout effects: the chart is set up and drawn in the commit that shows its tile, at the size the tile has, before the paint.
  useLayoutEffect(() => {
    const element = box.current!;
    const instance = echarts.init(element, undefined, { renderer: 'svg' });
    // Said on the element, not in React state: tests and bench:console wait for every tile to be drawn.
    instance.on('finished', () => {
      element.dataset.drawn = 'true';
    });
    chart.current = instance;
    // The observer also reports the size the chart was just drawn at: only a real change draws it again.
    const observer = new ResizeObserver(([entry]) => {
      const { width, height } = entry.contentRect;
      if (Math.round(width) !== instance.getWidth() || Math.round(height) !== instance.getHeight()) instance.resize();
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, []);

  useLayoutEffect(() => {
    if (box.current) box.current.dataset.drawn = 'false';
    chart.current?.setOption(option, { notMerge: true });
  }, [option]);

  return <div ref={box} className="echart" role="img" aria-label={label} />;
}
