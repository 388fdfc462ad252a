#include "clusteractionsbar.h"

#include "workflowsession.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;
using opsdeck::workflows::WorkflowSession;

ClusterActionsBar::ClusterActionsBar(WorkflowSession *session, QWidget *parent)
    : QWidget(parent), m_session(session), m_title(new QLabel), m_clusters(new QComboBox),
      m_coRestart(new QPushButton(u"Co-restart…"_s)),
      m_restartProxy(new QPushButton(u"Restart proxy…"_s)),
      m_revertKnob(new QPushButton(u"Revert knob…"_s)),
      m_restoreKnob(new QPushButton(u"Restore knob…"_s)), m_readOnly(new QLabel),
      m_unfinished(new QLabel), m_resume(new QPushButton(u"Resume…"_s)),
      m_abandon(new QPushButton(u"Abandon"_s))
{
    m_revertKnob->setToolTip(u"Plan a knob revert in the serve scripts that set it: backup, "
                             "diff, restart, verification, markers"_s);
    m_restoreKnob->setToolTip(u"Plan putting a knob back as it was before its last revert"_s);
    m_readOnly->setObjectName(u"readOnlyLabel"_s);

    auto *row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_title);
    row->addWidget(m_clusters);
    row->addSpacing(8);
    for (QPushButton *button : {m_coRestart, m_restartProxy, m_revertKnob, m_restoreKnob})
        row->addWidget(button);
    row->addSpacing(8);
    row->addWidget(m_readOnly);
    row->addStretch(1);
    auto *left = new QHBoxLayout;
    left->setContentsMargins(0, 0, 0, 0);
    m_unfinished->setWordWrap(true);
    m_unfinished->setObjectName(u"unfinishedWorkflow"_s);
    // Two lines of room: a wrapped label in a row is not given its height.
    m_unfinished->setMinimumHeight(m_unfinished->fontMetrics().lineSpacing() * 2 + 4);
    QPalette palette = m_unfinished->palette();
    palette.setColor(QPalette::WindowText, QColor(0x8a, 0x4b, 0x00));
    m_unfinished->setPalette(palette);
    left->addWidget(m_unfinished, 1);
    left->addWidget(m_resume);
    left->addWidget(m_abandon);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addLayout(row);
    layout->addLayout(left);

    const auto request = [this](const QString &kind) {
        return [this, kind] { Q_EMIT workflowRequested(kind, cluster()); };
    };
    connect(m_coRestart, &QPushButton::clicked, this, request(u"co-restart"_s));
    connect(m_restartProxy, &QPushButton::clicked, this, request(u"restart-proxy"_s));
    connect(m_revertKnob, &QPushButton::clicked, this, request(u"revert-knob"_s));
    connect(m_restoreKnob, &QPushButton::clicked, this, request(u"restore-knob"_s));
    connect(m_resume, &QPushButton::clicked, this, [this] {
        if (m_left)
            Q_EMIT resumeRequested(*m_left);
    });
    connect(m_abandon, &QPushButton::clicked, this, [this] {
        if (m_left)
            Q_EMIT abandonRequested(m_left->id);
    });
    connect(m_clusters, &QComboBox::currentIndexChanged, this, &ClusterActionsBar::showCluster);
    connect(session, &WorkflowSession::armedChanged, this, &ClusterActionsBar::showCluster);
    connect(session, &WorkflowSession::finished, this, &ClusterActionsBar::refresh);
    connect(session, &WorkflowSession::abandoned, this, &ClusterActionsBar::refresh);
    refresh();
}

QString ClusterActionsBar::cluster() const
{
    return m_clusters->currentText();
}

void ClusterActionsBar::refresh()
{
    const QString was = cluster();
    const auto &clusters = m_session->context().runner.inventory.clusters;
    m_clusters->blockSignals(true);
    m_clusters->clear();
    for (const auto &c : clusters)
        m_clusters->addItem(c.name);
    if (const int index = m_clusters->findText(was); index >= 0)
        m_clusters->setCurrentIndex(index);
    m_clusters->blockSignals(false);
    setVisible(!clusters.isEmpty());
    // What an earlier console left: the newest workflow that never ended.
    const auto left = m_session->unfinished();
    m_left = left.isEmpty() ? std::nullopt : std::optional(left.first());
    showCluster();
}

void ClusterActionsBar::showCluster()
{
    const auto &inventory = m_session->context().runner.inventory;
    const opsdeck::inventory::Cluster *c = inventory.cluster(cluster());
    const bool several = m_clusters->count() > 1;
    m_clusters->setVisible(several);
    m_title->setText(several ? u"<b>Cluster</b>"_s
                             : u"<b>Cluster %1</b>"_s.arg(cluster().toHtmlEscaped()));
    const bool pd = c && !c->prefill.isEmpty() && !c->decode.isEmpty();
    m_coRestart->setEnabled(pd);
    m_coRestart->setToolTip(pd ? u"Plan a PD co-restart: every decode stopped before any prefill, "
                                 "every prefill healthy before any decode starts, then verified"_s
                               : u"This cluster has no prefill and decode pair"_s);
    const bool proxy = c && !c->proxy.isEmpty();
    m_restartProxy->setEnabled(proxy);
    m_restartProxy->setToolTip(proxy ? u"Plan a restart of the cluster's proxy, then probe fresh "
                                       "and reused connections through it"_s
                                     : u"This cluster names no proxy in the inventory"_s);
    m_readOnly->setText(
        m_session->armed()
            ? u"<span style=\"color:#c62828\"><b>ARMED</b></span>: workflows may restart and edit"_s
            : u"read-only (armed: false): plans only"_s);
    m_readOnly->setToolTip(m_session->armed()
                               ? u"Workflows confirmed in their dialog restart and edit services"_s
                               : u"The inventory says armed: false. A workflow's dialog can arm "
                                 "it for this session after the inventory's name is typed."_s);
    const bool left = m_left.has_value();
    m_unfinished->setVisible(left);
    m_resume->setVisible(left);
    m_abandon->setVisible(left);
    if (left)
        m_unfinished->setText(
            u"Unfinished workflow %1 (%2 of %3): it stopped at step %4 of %5 — %6. Resume runs "
            "step %7 again after every guard; Abandon ends it (both audited)."_s.arg(
                m_left->id, m_left->plan.value(u"kind"_s).toString(),
                m_left->plan.value(u"confirm"_s).toString(), QString::number(m_left->lastStarted),
                QString::number(m_left->plan.value(u"steps"_s).toArray().size()),
                m_left->succeeded.isEmpty() ? u"no step ended well"_s
                : m_left->succeeded.size() == 1
                    ? u"step %1 ended well"_s.arg(m_left->succeeded.first())
                    : u"steps %1–%2 ended well"_s.arg(m_left->succeeded.first())
                          .arg(m_left->succeeded.last()),
                QString::number(m_left->resumeFrom())));
}
