#include "hoststab.h"

#include "hostconnections.h"
#include "hostkeydialog.h"
#include "hostpanel.h"
#include "hostsignals.h"
#include "hostsignalsqueries.h"
#include "hoststable.h"
#include "logpanel.h"
#include "logtail.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

HostsTab::HostsTab(opsdeck::hosts::HostConnections *hosts, QWidget *parent)
    : QWidget(parent), m_hosts(hosts), m_table(new HostsTable(hosts)), m_hostPanel(new HostPanel),
      m_logService(new QComboBox), m_logPanel(new LogPanel)
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 6, 0, 0);
    auto *logs = new QWidget;
    auto *logsLayout = new QVBoxLayout(logs);
    logsLayout->setContentsMargins(0, 0, 0, 0);
    auto *logBar = new QHBoxLayout;
    auto *logLabel = new QLabel(QStringLiteral("<b>Log of</b>"));
    logBar->addWidget(logLabel);
    m_logService->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_logService->setToolTip(QStringLiteral("Services on this host with a `log` in the inventory"));
    logBar->addWidget(m_logService);
    logBar->addStretch(1);
    logsLayout->addLayout(logBar);
    logsLayout->addWidget(m_logPanel, 1);

    // Hosts across the top, so the connection column (the failure reason) has
    // the whole width; the selected host's signals and a log side by side below.
    auto *below = new QSplitter(Qt::Horizontal);
    below->addWidget(m_hostPanel);
    below->addWidget(logs);
    below->setStretchFactor(0, 1);
    below->setStretchFactor(1, 1);
    // A little more for the process table's seven columns than for the log.
    below->setSizes({11000, 9000});
    auto *splitter = new QSplitter(Qt::Vertical);
    splitter->addWidget(m_table);
    splitter->addWidget(below);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 4);
    layout->addWidget(splitter);
    connect(m_table, &HostsTable::hostSelected, this, &HostsTab::selectHost);
    connect(m_logService, &QComboBox::currentIndexChanged, this, &HostsTab::selectLog);
    // The table rebuilds first (it connected first), then the new transports are used.
    connect(m_hosts, &opsdeck::hosts::HostConnections::hostsChanged, this,
            [this] { selectHost(m_table->currentHost()); });
    connect(m_hosts, &opsdeck::hosts::HostConnections::hostKeyUnknown, this, &HostsTab::askHostKey);
}

void HostsTab::selectHost(const QString &host)
{
    m_host = host;
    m_hostPanel->setHostSignals(nullptr);
    delete m_signals;
    m_signals = nullptr;
    {
        // Filling the box selects its first entry: one selectLog() after.
        const QSignalBlocker blocker(m_logService);
        m_logService->clear();
        if (m_hosts->inventory())
            for (const auto &service : m_hosts->inventory()->services)
                if (service.host == host && !service.log.isEmpty())
                    m_logService->addItem(service.name, service.log);
    }
    selectLog(m_logService->currentIndex());
    opsdeck::remote::Transport *transport = m_hosts->transport(host);
    if (!transport || !m_hosts->inventory())
        return;
    m_signals = new opsdeck::remote::HostSignals(
        transport, opsdeck::hosts::hostSignalsQueries(*m_hosts->inventory(), host), this);
    m_hostPanel->setHostSignals(m_signals);
    if (isVisible())
        m_signals->start();
}

void HostsTab::selectLog(int index)
{
    m_logPanel->setLogTail(nullptr);
    delete m_logTail;
    m_logTail = nullptr;
    opsdeck::remote::Transport *transport = m_hosts->transport(m_host);
    if (index < 0 || !transport)
        return;
    m_logTail = new opsdeck::remote::LogTail(transport, m_logService->itemData(index).toString(),
                                             opsdeck::remote::LogBuffer::defaultMaxLines, this);
    m_logPanel->setLogTail(m_logTail);
}

void HostsTab::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_signals && !m_signals->isActive())
        m_signals->start();
}

void HostsTab::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    if (m_signals)
        m_signals->stop();
}

void HostsTab::askHostKey(const QString &host, const opsdeck::remote::SshConnectionState &state)
{
    m_waiting.append({host, state});
    askNext();
}

void HostsTab::askNext()
{
    // One question at a time, in the order they came.
    if (m_dialog || m_waiting.isEmpty())
        return;
    const auto [host, state] = m_waiting.takeFirst();
    m_dialog = new HostKeyDialog(host, state, this);
    m_dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_dialog, &QDialog::finished, this, [this](int result) {
        const QString answered = m_dialog->host();
        if (result == QDialog::Accepted)
            m_hosts->acceptHostKey(answered, m_dialog->fingerprint());
        else if (m_dialog->refusedByOperator())
            m_hosts->refuseHostKey(answered);
        // Else closed without an answer: the host stays refused, nothing is audited.
        m_dialog = nullptr;
        askNext();
    });
    // Window-modal but not blocking: polling and the other hosts go on.
    m_dialog->open();
}
