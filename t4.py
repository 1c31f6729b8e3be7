import sys; sys.path.insert(0,'/tmp/webdev')
from cdp import CDP
import time
URL=open('/tmp/webdev/web3.out').read().strip()
c=CDP()
c.call("Page.navigate", {"url":URL}, sess=True)
c.wait("document.body.dataset.ready==='true'")
c.ev("document.body.setAttribute('style','color:red'); const s=document.createElement('script'); s.textContent='1'; document.body.append(s); 1")
time.sleep(0.5)
for e in c.events:
    if e.get("method")=="Log.entryAdded": print(e["params"]["entry"]["level"], e["params"]["entry"]["source"], e["params"]["entry"]["text"][:150])
