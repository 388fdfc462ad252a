#include "seriesgroup.h"

#include "hashmix.h"

#include <functional>

namespace opsdeck::metrics {

SeriesGroup::SeriesGroup(const Sample &sample, Replicas replicas, Le le)
    : m_sample(&sample), m_replicas(replicas), m_le(le)
{
    const std::hash<std::string_view> hash;
    for (const Label &l : sample.labels) {
        if (!counts(l.name))
            continue;
        ++m_size;
        m_hash += detail::mixHash(hash(l.name) * 31 + hash(l.value));
    }
}

bool SeriesGroup::isReplicaLabel(std::string_view name)
{
    return name == "tp_rank" || name == "moe_ep_rank" || name == "pid";
}

bool SeriesGroup::counts(std::string_view labelName) const
{
    if (m_le == Le::Drop && labelName == "le")
        return false;
    return m_replicas == Replicas::Keep || !isReplicaLabel(labelName);
}

bool SeriesGroup::operator==(const SeriesGroup &other) const
{
    if (m_hash != other.m_hash || m_size != other.m_size)
        return false;
    // Same number of counted labels, names unique per sample: equal when each
    // of ours is on the other side with the same value.
    for (const Label &mine : m_sample->labels) {
        if (!counts(mine.name))
            continue;
        bool found = false;
        for (const Label &theirs : other.m_sample->labels) {
            if (theirs.name == mine.name) {
                found = other.counts(theirs.name) && theirs.value == mine.value;
                break;
            }
        }
        if (!found)
            return false;
    }
    return true;
}

} // namespace opsdeck::metrics
