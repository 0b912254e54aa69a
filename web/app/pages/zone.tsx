export default function ZonePage({ slug }: { slug: string }) {
  return <h1>{slug}</h1>;
}
